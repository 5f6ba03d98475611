import { printed } from '../util/print-precision.js';

/**
 * What a run refused from its cars' own code and external devices (docs/run-folder.md,
 * "Refusals"): per car and reason a count with the first and last time, the first
 * REFUSALS_LOGGED_PER_CAR of each car as events and lines of its log, the rest only counted, so a
 * flood cannot fill the disk. A car (or device) that sent more than REFUSALS_INVALID_AFTER refused
 * messages makes the run `invalid`, naming it.
 */

/**
 * Why something a car sent was refused:
 * - `v2v-destination`: a V2V message not addressed to `*` or another car of the run;
 * - `v2v-source`: a standard message whose GN source is not the car's own station (or no GN packet);
 * - `malformed`: a CAM, DENM or CPM that is not one (message-gate.ts): dropped at every receiver;
 * - `drive-stamp`: a drive command stamped for a tick not yet sent, or with a stamp that is no time;
 * - `drive-clamped`: a drive command outside the car's limits, applied clamped to them (not refused,
 *   so it does not count towards the limit);
 * - `not-allowed`: a topic the car may not publish or subscribe to (another car's, /sim_control);
 * - `bad-request`: anything else the link refused (malformed JSON, a message missing its fields).
 */
export const REFUSAL_REASONS = [
  'v2v-destination',
  'v2v-source',
  'malformed',
  'drive-stamp',
  'drive-clamped',
  'not-allowed',
  'bad-request',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** Refusals of one car past which the run is `invalid` (clamped drive commands not counted). */
export const REFUSALS_INVALID_AFTER = 100;
/** Refusals of each car written as events and log lines; later ones are only counted. */
export const REFUSALS_LOGGED_PER_CAR = 20;

export interface RefusalCount {
  count: number;
  first_t_s: number;
  last_t_s: number;
}

/** summary.json's `refusals`: present when anything was refused. */
export interface RefusalFigures {
  invalid_after: number;
  logged_per_car: number;
  cars: Record<string, { refused: number; clamped: number; by_reason: Partial<Record<RefusalReason, RefusalCount>> }>;
}

/** The event a refusal is logged as: the V2V ones as `v2v-refused` (as before), the rest by kind. */
const eventOf = (reason: RefusalReason) =>
  reason === 'v2v-destination' || reason === 'v2v-source' ? 'v2v-refused' : reason === 'malformed' ? 'v2v-malformed' : 'refused';

export class RefusalLog {
  private readonly cars = new Map<string, { logged: number; byReason: Map<RefusalReason, RefusalCount> }>();

  /**
   * `event`: records an event (events.csv and the summary); `logLine`: appends a line to the car's
   * log. Both are called for the first REFUSALS_LOGGED_PER_CAR refusals of each car only.
   */
  constructor(
    private readonly event: (t: number, car: string, event: string, detail: Record<string, unknown>) => void,
    private readonly logLine: (car: string, line: string) => void = () => {},
  ) {}

  /** `count` refusals of one reason at virtual time `t` (a link drained once per tick reports several at once). */
  refuse(t: number, car: string, reason: RefusalReason, detail: Record<string, unknown>, count = 1): void {
    let entry = this.cars.get(car);
    if (!entry) this.cars.set(car, (entry = { logged: 0, byReason: new Map() }));
    const known = entry.byReason.get(reason);
    if (known) {
      known.count += count;
      known.last_t_s = t;
    } else entry.byReason.set(reason, { count, first_t_s: t, last_t_s: t });
    if (entry.logged >= REFUSALS_LOGGED_PER_CAR) return;
    entry.logged++;
    const full = { refused: reason, ...detail, ...(count > 1 ? { count } : {}) };
    this.event(t, car, eventOf(reason), full);
    const more = entry.logged === REFUSALS_LOGGED_PER_CAR ? ` (the first ${REFUSALS_LOGGED_PER_CAR} logged; later ones only counted)` : '';
    this.logLine(car, `cavsim refused at t=${t.toFixed(3)} s: ${JSON.stringify(full)}${more}`);
  }

  figures(): RefusalFigures | undefined {
    if (!this.cars.size) return undefined;
    const cars: RefusalFigures['cars'] = {};
    for (const [car, { byReason }] of [...this.cars].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const by_reason: Partial<Record<RefusalReason, RefusalCount>> = {};
      for (const r of REFUSAL_REASONS) {
        const c = byReason.get(r);
        if (c) by_reason[r] = { count: c.count, first_t_s: printed(c.first_t_s, 's'), last_t_s: printed(c.last_t_s, 's') };
      }
      const clamped = byReason.get('drive-clamped')?.count ?? 0;
      const all = [...byReason.values()].reduce((n, c) => n + c.count, 0);
      cars[car] = { refused: all - clamped, clamped, by_reason };
    }
    return { invalid_after: REFUSALS_INVALID_AFTER, logged_per_car: REFUSALS_LOGGED_PER_CAR, cars };
  }

  /** Why the run is invalid for what its cars sent, or undefined. */
  invalid(): string | undefined {
    const figures = this.figures();
    if (!figures) return undefined;
    const over = Object.entries(figures.cars).filter(([, c]) => c.refused > REFUSALS_INVALID_AFTER);
    if (!over.length) return undefined;
    return over
      .map(([car, c]) => {
        const reasons = Object.entries(c.by_reason)
          .filter(([r]) => r !== 'drive-clamped')
          .map(([r, n]) => `${r} ${n!.count}`)
          .join(', ');
        return `${car} sent ${c.refused} messages the run refused (more than ${REFUSALS_INVALID_AFTER}: ${reasons}; summary.json refusals)`;
      })
      .join('; ');
  }
}
