import type { Odometry } from '../core/control/vehicle-context.js';
import type { OccupancyGrid } from '../core/map/occupancy-grid.js';
import { footprintHitsWall } from '../core/map/wall-collision.js';
import { type Footprint, footprintCorners, footprintsOverlap } from '../core/physics/footprint.js';
import type { DriveCommand, VehicleState } from '../core/physics/types.js';
import { createInitialState, VehicleModel } from '../core/physics/vehicle-model.js';
import { CavsimError } from '../errors.js';
import type { ResolvedScenario, ResolvedVehicle } from '../scenario/resolved.js';
import { CarContacts } from './car-contacts.js';

export interface CollisionEvent {
  t: number;
  a: string;
  /** The other car's name, or 'wall'. */
  b: string;
  speedA: number;
  speedB: number;
}

export interface WorldCar {
  readonly spec: ResolvedVehicle;
  readonly model: VehicleModel;
  command: DriveCommand;
  /** A collided car is frozen where it hit, as f1tenth_gym stops a car on collision (a mirrored one is not: it moves itself). */
  collided: boolean;
  /** A physical car (external role: body): its state is the pose it reports (`mirror`), never integrated. */
  readonly mirrored: boolean;
  state: VehicleState;
  readonly footprint: Footprint;
}

/**
 * The physical world: every car's f1tenth_gym model stepped together on one map, with car-car
 * (footprint overlap) and car-wall (occupancy grid) collisions. Clock-agnostic: the simulated
 * runtime steps it in virtual time, the simulator container in wall-clock time.
 */
export class World {
  readonly cars: WorldCar[];
  readonly timestep: number;
  private stepIndex = 0;
  /** From this many cars on, car-car overlaps are looked for by a sweep, not in every pair (the same events). */
  private static readonly SWEEP_FROM_CARS = 16;
  private readonly contacts?: CarContacts;
  private readonly footprints: readonly Footprint[];

  constructor(
    readonly scenario: ResolvedScenario,
    readonly grid: OccupancyGrid,
  ) {
    this.timestep = scenario.physics.timestep;
    this.cars = scenario.vehicles.map((spec) => {
      const state = createInitialState({ x: spec.start.x, y: spec.start.y, yaw: spec.start.yaw, speed: spec.start.speed });
      const model = new VehicleModel(spec.params, state, { timestep: this.timestep, integrator: scenario.physics.integrator });
      return {
        spec,
        model,
        // Until a controller speaks, a car holds its start speed and drives straight.
        command: { speed: spec.start.speed, steer: 0 },
        collided: false,
        mirrored: spec.external?.role === 'body',
        state,
        footprint: footprintCorners(state, spec.params),
      };
    });
    this.footprints = this.cars.map((c) => c.footprint);
    if (this.cars.length >= World.SWEEP_FROM_CARS) this.contacts = new CarContacts(this.cars.length);
  }

  /** Simulation time [s]: a whole number of steps, so no rounding drift accumulates. */
  get time(): number {
    return this.stepIndex * this.timestep;
  }

  get steps(): number {
    return this.stepIndex;
  }

  odometry(car: WorldCar): Odometry {
    const s = car.state;
    return { t: this.time, x: s.x, y: s.y, yaw: s.yaw, v: s.v, steer: s.steer, yawRate: s.yawRate };
  }

  /** Places a mirrored car where it reported to be; the next step's collisions and everything after see it there. */
  mirror(car: WorldCar, state: VehicleState): void {
    car.state = state;
    footprintCorners(state, car.spec.params, car.footprint);
  }

  /** Advances every car by one step and returns the collisions that started in it. */
  step(): CollisionEvent[] {
    for (const car of this.cars) {
      if (car.collided || car.mirrored) continue;
      // in place: nothing keeps a car's state object from one step to the next (a mirrored or collided car gets a new one)
      car.model.stepInto(car.command, car.state);
      if (!isSane(car.state)) throw divergedError(car.spec.name, this.steps + 1, this.time + this.timestep, car.state);
      footprintCorners(car.state, car.spec.params, car.footprint);
    }
    this.stepIndex++;
    return this.detectCollisions();
  }

  private detectCollisions(): CollisionEvent[] {
    const events: CollisionEvent[] = [];
    const n = this.cars.length;
    const hit = new Set<WorldCar>();
    // footprints are updated in place, so the cars' own arrays are current
    const contacts = this.contacts?.find(this.footprints, (i, j) => this.cars[i].collided && this.cars[j].collided);
    let next = 0;
    for (let i = 0; i < n; i++) {
      const a = this.cars[i];
      for (; contacts && next < contacts.length && contacts[next][0] === i; next++) {
        const b = this.cars[contacts[next][1]];
        events.push({ t: this.time, a: a.spec.name, b: b.spec.name, speedA: a.state.v, speedB: b.state.v });
        hit.add(a).add(b);
      }
      for (let j = contacts ? n : i + 1; j < n; j++) {
        const b = this.cars[j];
        if (a.collided && b.collided) continue;
        if (footprintsOverlap(a.footprint, b.footprint)) {
          events.push({ t: this.time, a: a.spec.name, b: b.spec.name, speedA: a.state.v, speedB: b.state.v });
          hit.add(a).add(b);
        }
      }
      if (!a.collided && footprintHitsWall(a.footprint, this.grid)) {
        events.push({ t: this.time, a: a.spec.name, b: 'wall', speedA: a.state.v, speedB: 0 });
        hit.add(a);
      }
    }
    for (const car of hit) {
      if (car.collided) continue;
      car.collided = true;
      if (car.mirrored) continue;
      car.model.halt();
      car.state = car.model.state;
    }
    return events;
  }
}

/** Beyond these the single-track model has diverged (parameters it cannot integrate): no car drives so. */
const MAX_SPEED_MPS = 1000;
const MAX_YAW_RATE_RADPS = 1000;

function isSane(s: VehicleState): boolean {
  return (
    Number.isFinite(s.x) &&
    Number.isFinite(s.y) &&
    Number.isFinite(s.yaw) &&
    Number.isFinite(s.steer) &&
    Number.isFinite(s.slip) &&
    Math.abs(s.v) <= MAX_SPEED_MPS &&
    Math.abs(s.yawRate) <= MAX_YAW_RATE_RADPS
  );
}

/** A car at NaN never collides: a run whose physics diverged has no verdict, so it fails, saying why. */
function divergedError(car: string, step: number, t: number, s: VehicleState): CavsimError {
  const what = Object.entries(s)
    .filter(
      ([key, v]) =>
        !Number.isFinite(v) || (key === 'v' && Math.abs(v) > MAX_SPEED_MPS) || (key === 'yawRate' && Math.abs(v) > MAX_YAW_RATE_RADPS),
    )
    .map(([key, v]) => `${key} = ${v}`)
    .join(', ');
  return new CavsimError(
    'RUN_FAILED',
    `${car}'s physics diverged in step ${step} (t=${t.toFixed(2)} s: ${what}): the single-track model cannot integrate what this car did`,
    `if validation warned that vehicles.${car}.params may not integrate stably at this timestep, take its advice (docs/physics.md, "Parameter ranges"); ` +
      'the model itself is unstable when reversing faster than 0.5 m/s with the wheels turned, and can spin without bound when braking hard in a turn',
  );
}
