/**
 * The CA basic service's CAM generation rules (EN 302 637-2 V1.4.1, 6.1.3):
 * - checked every T_CheckCamGen (<= T_GenCamMin);
 * - condition 1: at least T_GenCamMin since the last CAM and the heading changed by more than
 *   4 degrees, the position by more than 4 m or the speed by more than 0.5 m/s since it;
 * - condition 2: at least T_GenCam since the last CAM. T_GenCam starts at T_GenCamMax; a CAM of
 *   condition 1 sets it to the time since the previous CAM, and after N_GenCam consecutive CAMs of
 *   condition 2 it is back at T_GenCamMax;
 * - the low-frequency container goes with the first CAM and then with the first CAM at least
 *   500 ms after the last one that carried it.
 * `fixedInterval` replaces both conditions by a CAM every that many seconds. With congestion control,
 * T_GenCam_Dcc (the least interval DCC allows, kept within [T_GenCamMin, T_GenCamMax]) takes
 * T_GenCamMin's place in condition 1 and bounds condition 2 and the fixed interval from below.
 */
export interface CamGenerationParams {
  minInterval: number; // T_GenCamMin [s]
  maxInterval: number; // T_GenCamMax [s]
  nGenCam: number;
  lowFrequencyInterval: number; // [s]
  headingThreshold: number; // [deg]
  positionThreshold: number; // [m]
  speedThreshold: number; // [m/s]
  fixedInterval?: number; // [s]
}

export const CAM_GENERATION_DEFAULTS: CamGenerationParams = {
  minInterval: 0.1,
  maxInterval: 1,
  nGenCam: 3,
  lowFrequencyInterval: 0.5,
  headingThreshold: 4,
  positionThreshold: 4,
  speedThreshold: 0.5,
};

export interface CamKinematics {
  x: number; // [m]
  y: number; // [m]
  headingDeg: number;
  speed: number; // [m/s]
}

export type CamTrigger = 'first' | 'dynamics' | 'time' | 'fixed-rate';

export interface CamDecision {
  trigger: CamTrigger;
  lowFrequency: boolean;
}

/** Small tolerance on time comparisons: checks fall on a grid of float sums. */
const EPS = 1e-9;

export class CamGenerationRules {
  private last?: { at: number; state: CamKinematics };
  private lastLowFrequencyAt?: number;
  private tGenCam: number;
  private timeTriggeredInARow = 0;

  constructor(private readonly params: CamGenerationParams) {
    this.tGenCam = params.maxInterval;
  }

  /** The current T_GenCam [s]. */
  get interval(): number {
    return this.tGenCam;
  }

  /**
   * One check at `now`: a decision to send a CAM now, or undefined. A decision is taken as sent.
   * `dccInterval`: the least interval congestion control allows now [s] (0: none).
   */
  check(now: number, state: CamKinematics, dccInterval = 0): CamDecision | undefined {
    const trigger = this.trigger(now, state, dccInterval);
    if (!trigger) return undefined;
    const p = this.params;
    if (trigger === 'dynamics') {
      this.tGenCam = Math.min(p.maxInterval, Math.max(p.minInterval, now - this.last!.at));
      this.timeTriggeredInARow = 0;
    } else if (trigger === 'time' && ++this.timeTriggeredInARow >= p.nGenCam) {
      this.tGenCam = p.maxInterval;
      this.timeTriggeredInARow = 0;
    }
    const lowFrequency = this.lastLowFrequencyAt === undefined || now - this.lastLowFrequencyAt >= p.lowFrequencyInterval - EPS;
    if (lowFrequency) this.lastLowFrequencyAt = now;
    this.last = { at: now, state: { ...state } };
    return { trigger, lowFrequency };
  }

  private trigger(now: number, state: CamKinematics, dccInterval: number): CamTrigger | undefined {
    const p = this.params;
    if (!this.last) return p.fixedInterval !== undefined ? 'fixed-rate' : 'first';
    const elapsed = now - this.last.at;
    if (p.fixedInterval !== undefined) return elapsed >= Math.max(p.fixedInterval, dccInterval) - EPS ? 'fixed-rate' : undefined;
    // T_GenCam_Dcc: T_GenCamMin without congestion control
    const least = Math.max(p.minInterval, Math.min(dccInterval, p.maxInterval));
    if (elapsed < least - EPS) return undefined;
    if (this.changedEnough(state)) return 'dynamics';
    return elapsed >= this.tGenCam - EPS ? 'time' : undefined;
  }

  private changedEnough(state: CamKinematics): boolean {
    const p = this.params;
    const before = this.last!.state;
    const heading = Math.abs(((state.headingDeg - before.headingDeg + 540) % 360) - 180);
    const moved = Math.hypot(state.x - before.x, state.y - before.y);
    return heading > p.headingThreshold || moved > p.positionThreshold || Math.abs(state.speed - before.speed) > p.speedThreshold;
  }
}
