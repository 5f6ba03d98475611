import { accelerationForCommand, type DynamicsInputs, steeringVelocityForCommand } from './command-conversion.js';
import { F1TENTH_DEFAULT_INTEGRATOR, F1TENTH_STEER_DELAY_STEPS, F1TENTH_TIMESTEP } from './defaults.js';
import { IntegrationScratch, type IntegratorKind, integrateStepInPlace } from './integration.js';
import { ISLIP, ISTEER, IV, IX, IY, IYAW, IYAW_RATE, packState, STATE_SIZE, unpackState, unpackStateInto } from './state-vector.js';
import { SteerDelayLine } from './steer-delay.js';
import type { DriveCommand, VehicleParams, VehicleState } from './types.js';

export interface VehicleModelOptions {
  /** Physics step [s]; default 0.01 as F110Env. */
  timestep?: number;
  /** Default 'rk4' as F110Env (RaceCar's own default would be Euler). */
  integrator?: IntegratorKind;
  /** Steering command delay in steps; default 2 as RaceCar.steer_buffer_size. */
  steerDelaySteps?: number;
}

export interface InitialPose {
  x: number;
  y: number;
  yaw: number;
  /** Initial longitudinal speed [m/s]; f1tenth_gym always resets to 0, cavsim allows a moving start. */
  speed?: number;
  /** Initial wheel angle [rad]; default 0 as the gym. */
  steer?: number;
}

/** A state at rest-or-cruising with no yaw rate and no slip, as RaceCar.reset builds it. */
export function createInitialState(pose: InitialPose): VehicleState {
  return { x: pose.x, y: pose.y, steer: pose.steer ?? 0, v: pose.speed ?? 0, yaw: pose.yaw, yawRate: 0, slip: 0 };
}

/**
 * One car of f1tenth_gym (RaceCar.update_pose without the laser): delayed steering command ->
 * pid conversion -> single-track dynamics integrated over one timestep -> yaw wrap.
 */
export class VehicleModel {
  readonly timestep: number;
  readonly integrator: IntegratorKind;
  private readonly x = new Float64Array(STATE_SIZE);
  private readonly scratch = new IntegrationScratch();
  private readonly steerDelay: SteerDelayLine;
  private accel = 0;
  private steerVel = 0;

  constructor(
    readonly params: Readonly<VehicleParams>,
    initialState: VehicleState,
    opts: VehicleModelOptions = {},
  ) {
    this.timestep = opts.timestep ?? F1TENTH_TIMESTEP;
    this.integrator = opts.integrator ?? F1TENTH_DEFAULT_INTEGRATOR;
    if (!(this.timestep > 0) || !Number.isFinite(this.timestep)) {
      throw new RangeError(`timestep must be a positive finite number of seconds, got ${this.timestep}`);
    }
    if (this.integrator !== 'rk4' && this.integrator !== 'euler') {
      throw new RangeError(`integrator must be 'rk4' or 'euler', got ${String(this.integrator)}`);
    }
    assertFiniteParams(params);
    this.steerDelay = new SteerDelayLine(opts.steerDelaySteps ?? F1TENTH_STEER_DELAY_STEPS);
    this.reset(initialState);
  }

  /** Advances one timestep under `cmd` and returns the new state. */
  step(cmd: DriveCommand): VehicleState {
    this.advance(cmd);
    return unpackState(this.x);
  }

  /** As `step`, with the new state written into `out`: a fleet steps hundreds of cars a step, and an object each is garbage. */
  stepInto(cmd: DriveCommand, out: VehicleState): VehicleState {
    this.advance(cmd);
    return unpackStateInto(this.x, out);
  }

  private advance(cmd: DriveCommand): void {
    const steerCmd = this.steerDelay.push(cmd.steer);
    this.accel = accelerationForCommand(cmd.speed, this.x[IV], this.params);
    this.steerVel = steeringVelocityForCommand(steerCmd, this.x[ISTEER], this.params);
    integrateStepInPlace(this.integrator, this.x, this.accel, this.steerVel, this.params, this.timestep, this.scratch);
  }

  /** A copy of the current state. */
  get state(): VehicleState {
    return unpackState(this.x);
  }

  /** Allocation-free reads for hot loops (e.g. collision checks over many cars). */
  get poseX(): number {
    return this.x[IX];
  }
  get poseY(): number {
    return this.x[IY];
  }
  get poseYaw(): number {
    return this.x[IYAW];
  }
  get speed(): number {
    return this.x[IV];
  }

  /** The raw inputs the last step applied, before the constraint functions. */
  get lastInputs(): DynamicsInputs {
    return { accel: this.accel, steerVel: this.steerVel };
  }

  /** As RaceCar.reset: new state, inputs cleared, steering delay emptied. */
  reset(state: VehicleState): void {
    packState(state, this.x);
    for (let i = 0; i < STATE_SIZE; i++) {
      if (!Number.isFinite(this.x[i])) throw new RangeError(`vehicle state must be finite, got ${JSON.stringify(state)}`);
    }
    this.accel = 0;
    this.steerVel = 0;
    this.steerDelay.clear();
  }

  /**
   * What RaceCar.check_ttc does on a wall collision: the car stops dead and inputs are cleared.
   * The gym zeroes state[3:], which includes the yaw angle; `zeroYaw: true` reproduces that
   * quirk, the default keeps the heading. The steering delay line is left as is, as in the gym.
   */
  halt(opts: { zeroYaw?: boolean } = {}): void {
    this.x[IV] = 0;
    this.x[IYAW_RATE] = 0;
    this.x[ISLIP] = 0;
    if (opts.zeroYaw) this.x[IYAW] = 0;
    this.accel = 0;
    this.steerVel = 0;
  }
}

function assertFiniteParams(params: VehicleParams): void {
  const bad = Object.entries(params).filter(([, value]) => typeof value !== 'number' || !Number.isFinite(value));
  if (bad.length > 0) throw new RangeError(`vehicle params must be finite numbers: ${bad.map(([k]) => k).join(', ')}`);
  if (params.v_min >= 0 || params.v_max <= 0) throw new RangeError('vehicle params need v_min < 0 < v_max (pid gains divide by both)');
}
