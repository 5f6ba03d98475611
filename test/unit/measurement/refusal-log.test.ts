import { describe, expect, it } from 'vitest';
import { REFUSALS_INVALID_AFTER, REFUSALS_LOGGED_PER_CAR, RefusalLog } from '../../../src/measurement/refusal-log.js';

describe('RefusalLog', () => {
  it('counts per car and reason with first and last time, logs only the first ones, and says when a car makes the run invalid', () => {
    const events: [number, string, string, Record<string, unknown>][] = [];
    const lines: string[] = [];
    const log = new RefusalLog(
      (t, car, event, detail) => events.push([t, car, event, detail]),
      (car, line) => lines.push(`${car} ${line}`),
    );
    expect(log.figures()).toBeUndefined();
    log.refuse(0.1, 'car3', 'v2v-destination', { to: 'car3', reason: 'addressed to the sending car itself' });
    log.refuse(0.2, 'car3', 'drive-clamped', { speed: 1e308 });
    log.refuse(0.3, 'car3', 'bad-request', { reason: 'frame is not JSON' }, 5000);
    for (let i = 0; i < 50; i++) log.refuse(1 + i / 10, 'car3', 'malformed', { id: `car3-${i}` });
    log.refuse(2, 'car4', 'not-allowed', { topic: '/sim_control' });
    expect(events).toHaveLength(REFUSALS_LOGGED_PER_CAR + 1);
    expect(lines).toHaveLength(REFUSALS_LOGGED_PER_CAR + 1);
    expect(events[0]).toEqual([
      0.1,
      'car3',
      'v2v-refused',
      { refused: 'v2v-destination', to: 'car3', reason: 'addressed to the sending car itself' },
    ]);
    expect(events[2][3]).toMatchObject({ refused: 'bad-request', count: 5000 });
    expect(events[3][2]).toBe('v2v-malformed');
    const figures = log.figures()!;
    expect(figures.invalid_after).toBe(REFUSALS_INVALID_AFTER);
    expect(figures.cars.car3).toEqual({
      refused: 5051,
      clamped: 1,
      by_reason: {
        'v2v-destination': { count: 1, first_t_s: 0.1, last_t_s: 0.1 },
        malformed: { count: 50, first_t_s: 1, last_t_s: 5.9 },
        'drive-clamped': { count: 1, first_t_s: 0.2, last_t_s: 0.2 },
        'bad-request': { count: 5000, first_t_s: 0.3, last_t_s: 0.3 },
      },
    });
    expect(log.invalid()).toMatch(
      /^car3 sent 5051 messages the run refused \(more than 100: v2v-destination 1, malformed 50, bad-request 5000/,
    );
    expect(log.invalid()).not.toMatch(/car4/);
  });

  it('leaves a run with a few refusals valid', () => {
    const log = new RefusalLog(() => {});
    for (let i = 0; i < REFUSALS_INVALID_AFTER; i++) log.refuse(i, 'car0', 'malformed', {});
    expect(log.invalid()).toBeUndefined();
    log.refuse(200, 'car0', 'malformed', {});
    expect(log.invalid()).toMatch(/^car0 sent 101 messages/);
  });

  it('times at their printed precision (no float noise in summary.json)', () => {
    const log = new RefusalLog(() => {});
    log.refuse(0.05, 'car3', 'malformed', {});
    log.refuse(9.950000000000001, 'car3', 'malformed', {});
    expect(log.figures()!.cars.car3.by_reason.malformed).toEqual({ count: 2, first_t_s: 0.05, last_t_s: 9.95 });
  });
});
