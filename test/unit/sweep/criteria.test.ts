import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../src/errors.js';
import type { RunSummary } from '../../../src/run/summary.js';
import { sweepAnswer } from '../../../src/sweep/answer.js';
import { parseCriteria, parseCriterion } from '../../../src/sweep/criteria.js';
import { resultFromSummary, type SweepResult } from '../../../src/sweep/result-row.js';
import type { SweepSpec } from '../../../src/sweep/sweep-folder.js';
import { pointsCsv } from '../../../src/sweep/tables.js';

const delays = [10, 40, 70, 100];
const losses = [0, 0.2, 0.4];

const spec = (criteria?: string[], repeat = 1): SweepSpec => ({
  schema: 'cavsim.sweep/1',
  id: 's',
  created: '',
  scenario: '/x/platoon-cacc-cam.yaml',
  runtime: 'sim',
  fixed: [],
  axes: [
    { path: 'network.delay', values: [] },
    { path: 'network.loss', values: [] },
  ],
  repeat,
  baseSeed: 1,
  mode: { type: 'grid', points: [] },
  ...(criteria ? { criteria } : {}),
});

/** A platoon run: unstable above a delay that falls with loss (70, 40, 10 ms), colliding only at loss 0.4 from 70 ms. */
function run(delay: number, loss: number, repeat = 0, extra: Partial<SweepResult> = {}): SweepResult {
  return {
    id: `p-${delay}-${loss}-r${repeat}`,
    key: `${delay}&${loss}#${repeat}`,
    gridIndex: 0,
    repeat,
    seed: 1 + repeat,
    runDir: '',
    status: 'completed',
    values: {
      'network.delay': { text: `${delay}ms`, value: delay, unit: 'ms' },
      'network.loss': { text: String(loss), value: loss, unit: '' },
    },
    min_ttc_s: 1,
    min_distance_m: 2,
    min_gap_m: 1.5 - delay / 100,
    collision: loss === 0.4 && delay >= 70,
    first_collision_t_s: null,
    v2v_sent: 10,
    v2v_lost: 0,
    v2v_p50_ms: delay,
    v2v_p99_ms: delay,
    delivery_ratio: 1 - loss,
    beacon_age_mean_ms: 200 + delay,
    string_stability_worst: delay > 70 - loss * 300 ? 1.2 : 0.9,
    sim_time_s: 10,
    wall_time_s: 0.5,
    timing: {},
    ...extra,
  };
}

const grid = (repeat = 1) => delays.flatMap((d) => losses.flatMap((l) => Array.from({ length: repeat }, (_, r) => run(d, l, r))));

describe('--criterion', () => {
  it('reads each criterion and its bound, and refuses bad syntax naming the flag and the forms', () => {
    expect(parseCriterion('collision').name).toBe('collision');
    expect(parseCriterion('string-stability').name).toBe('string-stability');
    expect(parseCriterion('delivery<90%').name).toBe('delivery<0.9');
    expect(parseCriterion('aoi>0.5s').name).toBe('aoi>500ms');
    expect(parseCriterion('gap < 50cm').name).toBe('gap<0.5m');
    const r = run(100, 0.2);
    expect(parseCriterion('delivery<0.9').fails(r)).toBe(true);
    expect(parseCriterion('delivery<0.7').fails(r)).toBe(false);
    expect(parseCriterion('aoi>250ms').fails(r)).toBe(true);
    expect(parseCriterion('gap<1m').fails(r)).toBe(true);
    expect(parseCriterion('string-stability').fails({ ...r, string_stability_worst: null })).toBeNull();
    for (const bad of ['speed<3', 'delivery>0.9', 'delivery<1.5', 'aoi>200', 'gap<2', 'aoi<200ms']) {
      expect(() => parseCriterion(bad), bad).toThrow(UserInputError);
      try {
        parseCriterion(bad);
      } catch (err) {
        expect((err as UserInputError).message).toContain(`--criterion ${bad}`);
        expect((err as UserInputError).hint).toContain('delivery<RATIO');
      }
    }
    // collision when none is given; each once
    expect(parseCriteria(undefined).map((c) => c.name)).toEqual(['collision']);
    expect(parseCriteria(['collision', 'string-stability', 'collision']).map((c) => c.name)).toEqual(['collision', 'string-stability']);
  });

  it('answers a 2-D grid with a critical delay per loss value for each criterion', () => {
    const answer = sweepAnswer(spec(['string-stability', 'collision']), grid());
    expect(answer.criteria.map((c) => c.criterion)).toEqual(['string-stability', 'collision']);
    const [stability, collision] = answer.criteria;
    expect(stability.curve.map((c) => [c.at['network.loss'], c.last_ok, c.first_fail])).toEqual([
      ['0', '70ms', '100ms'],
      ['0.2', '10ms', '40ms'],
      ['0.4', null, '10ms'],
    ]);
    expect(collision.curve.map((c) => [c.at['network.loss'], c.last_ok, c.first_fail])).toEqual([
      ['0', '100ms', null],
      ['0.2', '100ms', null],
      ['0.4', '40ms', '70ms'],
    ]);
    expect(answer.lines).toEqual([
      'string-unstable along network.delay, by network.loss: 0 → from 100ms; 0.2 → from 40ms; 0.4 → from 10ms (every value)',
      'collisions along network.delay, by network.loss: 0 → none up to 100ms; 0.2 → none up to 100ms; 0.4 → from 70ms',
    ]);
    expect(answer.text).toBe(answer.lines.join('; '));
  });

  it('keeps the one-field answer of a collision sweep, and says it for any criterion', () => {
    const oneField = { ...spec(), axes: [{ path: 'network.delay', values: [] }] };
    const results = delays.map((d) => {
      const r = run(d, 0.4);
      return { ...r, values: { 'network.delay': r.values['network.delay'] } };
    });
    expect(sweepAnswer(oneField, results).text).toBe('no collision up to 40ms, collisions from 70ms (network.delay)');
    expect(sweepAnswer({ ...oneField, criteria: ['gap<0.6m'] }, results).text).toBe(
      'gap at least 0.6 m up to 70ms, gap below 0.6 m from 100ms (network.delay)',
    );
    expect(sweepAnswer({ ...oneField, criteria: ['aoi>1s'] }, results).text).toBe('AoI at most 1000 ms at all 4 points, 10ms to 100ms');
  });

  it('points.csv: every figure with its interval clipped to its range, criteria shares with Wilson intervals', () => {
    // three seeds per point, one unstable and delivery spread around 0.98: its mean's interval would pass 1
    const results = grid(3).map((r) =>
      r.repeat === 2 ? { ...r, string_stability_worst: 1.5, delivery_ratio: 0.94 } : { ...r, delivery_ratio: 1 },
    );
    const lines = pointsCsv(spec(['string-stability'], 3), results)
      .trim()
      .split('\n');
    const header = lines[0].split(',');
    const row = Object.fromEntries(lines[1].split(',').map((v, i) => [header[i], v]));
    expect(row.runs).toBe('3');
    expect(row.delivery_ratio_hi95).toBe('1');
    expect(Number(row.delivery_ratio_mean)).toBeCloseTo(0.98, 6);
    expect(Number(row.delivery_ratio_mean) + Number(row.delivery_ratio_ci95)).toBeGreaterThan(1);
    expect(row.string_unstable_runs).toBe('1');
    expect(row.string_unstable_measured).toBe('3');
    // Wilson 95 % of 1 in 3: 0.0615 .. 0.7923
    expect(Number(row.string_unstable_rate_lo95)).toBeCloseTo(0.0615, 3);
    expect(Number(row.string_unstable_rate_hi95)).toBeCloseTo(0.7923, 3);
    expect(row.collision_rate_lo95).toBe('0');
    for (const column of ['min_gap_m', 'beacon_age_mean_ms', 'string_stability_worst', 'cbr_mean', 'v2v_p99_ms'])
      expect(header).toContain(`${column}_mean`);
  });

  it("fills the age of information for CAM platoons from the CAM figures, and the channel's busy ratio", () => {
    const summary = {
      seed: 1,
      status: 'completed',
      collision: false,
      v2v: {
        sent: 1,
        lost: 0,
        p50_ms: 1,
        p99_ms: 1,
        beacon_age: null,
        cam: { all: { age: { mean_ms: 228.762 } } },
        channel_busy: { mean: 0.0037 },
      },
    } as unknown as RunSummary;
    const point = { id: 'p0', gridIndex: 0, repeat: 0, values: {} };
    const r = resultFromSummary(point, 'k', summary, 'runs/p0');
    expect(r.beacon_age_mean_ms).toBe(228.762);
    expect(r.cbr_mean).toBe(0.0037);
  });
});
