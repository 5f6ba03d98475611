import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../src/run/summary.js';
import type { SweepResult } from '../../../src/sweep/result-row.js';
import type { SweepSpec } from '../../../src/sweep/sweep-folder.js';
import { deliveryByDistance, deliveryDistanceFigure } from '../../../src/ui/report/delivery-distance-figure.js';
import { kinematicsFigure } from '../../../src/ui/report/kinematics-figure.js';
import type { RunTraces } from '../../../src/ui/report/read-run.js';
import { svgToPng, vegaLiteToSvg } from '../../../src/ui/report/render.js';
import { sweepFigure } from '../../../src/ui/report/sweep-figure.js';
import { v2xFigure } from '../../../src/ui/report/v2x-figure.js';

const spec = (repeat: number): SweepSpec => ({
  schema: 'cavsim.sweep/1',
  id: 's',
  created: '',
  scenario: '/x/head-on-brake.yaml',
  runtime: 'sim',
  fixed: [],
  axes: [{ path: 'network.delay', values: [] }],
  repeat,
  baseSeed: 1,
  mode: { type: 'grid', points: [] },
});

function result(delay: number, repeat: number, collision: boolean, status: SweepResult['status'] = 'completed'): SweepResult {
  return {
    id: `p${delay}-r${repeat}`,
    key: `${delay}#${repeat}`,
    gridIndex: delay,
    repeat,
    seed: 1 + repeat,
    runDir: '',
    status,
    values: { 'network.delay': { text: `${delay}ms`, value: delay, unit: 'ms' } },
    min_ttc_s: 0.6 - delay / 1000,
    min_distance_m: 3.3 - delay / 100 + repeat / 10,
    collision,
    first_collision_t_s: collision ? 2 : null,
    v2v_sent: 1,
    v2v_lost: 0,
    v2v_p50_ms: delay,
    v2v_p99_ms: delay,
    sim_time_s: 5,
    wall_time_s: 0.1,
    timing: {},
  };
}

const dataOf = (figure: object) => (figure as { data: { values: Record<string, unknown>[] } }).data.values;

describe('figures', () => {
  it('marks each run by verdict and draws means with intervals when repeated', async () => {
    const results = [10, 150, 300].flatMap((d) => [0, 1, 2].map((r) => result(d, r, d === 300 || (d === 150 && r === 2))));
    results.push(result(200, 0, false, 'invalid'));
    const figure = sweepFigure(spec(3), results);
    const data = dataOf(figure);
    const runs = data.filter((d) => d.layer === 'run' && d.metric === 'distance');
    expect(runs).toHaveLength(10);
    expect(runs.filter((d) => d.verdict === 'collision')).toHaveLength(4);
    expect(runs.filter((d) => d.verdict === 'invalid run')).toHaveLength(1);
    const means = data.filter((d) => d.layer === 'mean' && d.metric === 'distance');
    // the invalid run is drawn, not averaged: three points with three completed runs each, one with none
    expect(means.map((m) => m.x)).toEqual([10, 150, 300]);
    expect(means[0].y).toBeCloseTo(3.3 - 0.1 + 0.1, 9);
    expect(means.every((m) => m.ci === true && (m.hi as number) > (m.lo as number))).toBe(true);
    const rates = data.filter((d) => d.layer === 'rate');
    expect(rates.map((d) => d.y)).toEqual([0, 1 / 3, 1]);
    // 95% Wilson interval: never zero-width at 0 or 1
    expect(rates[0].lo).toBe(0);
    expect(rates[0].hi).toBeCloseTo(0.5615, 3);
    expect(rates[2].lo).toBeCloseTo(0.4385, 3);
    // repeats of one value sit side by side, not on top of each other
    expect(new Set(runs.filter((d) => d.run!.toString().startsWith('p10-')).map((d) => d.x)).size).toBe(3);

    const svg = await vegaLiteToSvg(figure);
    expect(svg).toMatch(/^<svg/);
    // without gaps in the results (older sweeps) the centre distance is drawn, and named so
    for (const text of [
      'minimum centre distance [m]',
      'minimum time to collision [s]',
      'V2V delay [ms]',
      'share of runs that collided',
      'collision',
      'head-on-brake: closest approach against V2V delay',
    ])
      expect(svg).toContain(text);
    const png = svgToPng(svg, 1);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it("draws the bumper-to-bumper gap with contact marked, titled by the scenario's name", async () => {
    const results = [10, 300].map((d) => ({ ...result(d, 0, d === 300), min_gap_m: d === 300 ? 0 : 2.7 }));
    const figure = sweepFigure(spec(1), results, undefined, 'my-study');
    expect(
      dataOf(figure)
        .filter((d) => d.layer === 'run' && d.metric === 'distance')
        .map((d) => d.y),
    ).toEqual([2.7, 0]);
    const svg = await vegaLiteToSvg(figure);
    for (const text of ['closest bumper-to-bumper gap [m]', 'contact (collision)', 'my-study: closest approach against V2V delay'])
      expect(svg).toContain(text);
    const png = svgToPng(svg, 1);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('draws speed, TTC and distance per run, with braking and collision markers', async () => {
    const traces: RunTraces = {
      dir: '',
      deliveries: [],
      summary: {
        duration_s: 2,
        first_collision_t_s: 1.5,
        collision: true,
        parameters: { vehicles: [{ apps: [{ type: 'ttc-brake-sender', threshold: 0.7 }] }] },
      } as unknown as RunSummary,
      vehicles: Array.from({ length: 21 }, (_, i) => [
        { t: i / 10, vehicle: 'car0', speed: 10 - i / 2 },
        { t: i / 10, vehicle: 'car1', speed: 10 },
      ]).flat(),
      pairs: Array.from({ length: 21 }, (_, i) => ({
        t: i / 10,
        pair: 'car0–car1',
        distance: 20 - i,
        gap: null,
        ttc: i < 20 ? (20 - i) / 20 : null,
      })),
      events: [
        { t: 0.5, vehicle: 'car0', event: 'emergency-brake' },
        { t: 0.5, vehicle: 'car0', event: 'brake-sent' },
      ],
    };
    const figure = kinematicsFigure([{ label: 'delay 300 ms (collision)', traces }]);
    const data = dataOf(figure);
    expect(data.filter((d) => d.panel === 'speed')).toHaveLength(42);
    expect(data.filter((d) => d.panel === 'ttc')).toHaveLength(20);
    expect(data.filter((d) => d.panel === 'rule')).toEqual([
      { run: 'delay 300 ms (collision)', panel: 'rule', series: 'car0', t: 0.5, kind: 'car0 brakes' },
    ]);
    expect(data.filter((d) => d.panel === 'collision').map((d) => d.t)).toEqual([1.5]);
    expect(data.filter((d) => d.panel === 'threshold').map((d) => d.value)).toEqual([0.7]);
    const svg = await vegaLiteToSvg(figure);
    for (const text of ['speed [m/s]', 'time to collision [s]', 'centre distance [m]', 'time [s]', 'delay 300 ms (collision)', 'car0–car1'])
      expect(svg).toContain(text);
    // cars at equal speeds stay apart: each series has its own dash pattern
    const dashes = (
      figure as unknown as { hconcat: { spec: { layer: { encoding: { strokeDash?: { scale: { range: number[][] } } } }[] } }[] }
    ).hconcat[0].spec.layer[0].encoding.strokeDash!.scale.range;
    expect(new Set(dashes.map((d) => d.join(','))).size).toBe(dashes.length);
  });

  it('bounds the TTC axis when the cars never close head-on, and draws the gap with contact at 0', async () => {
    const traces: RunTraces = {
      dir: '',
      deliveries: [],
      summary: { duration_s: 2, first_collision_t_s: null, collision: false, parameters: { vehicles: [] } } as unknown as RunSummary,
      vehicles: [{ t: 0, vehicle: 'car0', speed: 5 }],
      pairs: Array.from({ length: 21 }, (_, i) => ({ t: i / 10, pair: 'car0–car1', distance: 3, gap: 2.4, ttc: 1.5e8 })),
      events: [],
    };
    const figure = kinematicsFigure([{ label: 'loop', traces }], 'loop: speed');
    const ttcScale = (figure as unknown as { hconcat: { spec: { layer: { encoding: { y: { scale: { domain?: number[] } } } }[] } }[] })
      .hconcat[1].spec.layer[0].encoding.y.scale.domain!;
    expect(ttcScale[1]).toBeLessThanOrEqual(13);
    const svg = await vegaLiteToSvg(figure);
    for (const text of ['bumper-to-bumper gap [m]', 'loop: speed', 'TTC shown up to']) expect(svg).toContain(text);
  });

  it('V2X figures: one panel per figure the runs have, the car length and the stability limit marked', async () => {
    expect(v2xFigure(spec(1), [result(10, 0, false)], 0.58)).toBeUndefined();
    const platoon = [100, 300, 500].map((d) => ({
      ...result(d, 0, d === 500),
      min_gap_m: 1.2 - d / 500,
      beacon_age_mean_ms: d + 60,
      string_stability_worst: 0.9 + d / 1000,
    }));
    const figure = v2xFigure(spec(1), platoon, 0.58) as unknown as {
      concat: { layer: { data: { values: Record<string, unknown>[] }; encoding: { y: { title?: string } } }[] }[];
    };
    const titles = figure.concat.map((p) => p.layer.at(-1)!.encoding.y.title);
    expect(titles).toEqual(['smallest bumper-to-bumper gap [m]', 'beacon age of information, mean [ms]', 'worst string-stability ratio']);
    expect(figure.concat[0].layer[0].data.values).toEqual([{ y: 0.58, label: 'one car length' }]);
    expect(figure.concat[2].layer[0].data.values).toEqual([{ y: 1, label: 'stable below' }]);
    expect(figure.concat[1].layer.at(-1)!.data.values).toEqual([
      { x: 100, y: 160, verdict: 'no collision', group: 'all' },
      { x: 300, y: 360, verdict: 'no collision', group: 'all' },
      { x: 500, y: 560, verdict: 'collision', group: 'all' },
    ]);
    // it renders
    expect(await vegaLiteToSvg(figure as never)).toMatch(/^<svg/);
  });

  it('delivery against distance: frames pooled in bins of the distance at send time, one line per series', async () => {
    const rows = [1, 2, 4, 6, 7, 9, 11].map((distance, i) => ({ distance, delivered: i % 2 === 0 }));
    expect(deliveryByDistance(rows, 5)).toEqual([
      { from: 0, to: 5, ratio: 2 / 3, frames: 3 },
      { from: 5, to: 10, ratio: 1 / 3, frames: 3 },
      { from: 10, to: 15, ratio: 1, frames: 1 },
    ]);
    expect(deliveryDistanceFigure([{ label: 'a', rows: [] }], 't')).toBeUndefined();
    const figure = deliveryDistanceFigure(
      [
        { label: 'a', rows },
        { label: 'b', rows: rows.slice(0, 2) },
      ],
      't',
    )!;
    expect(dataOf(figure).map((d) => d.series)).toEqual(['a', 'a', 'a', 'b']);
    expect(await vegaLiteToSvg(figure)).toMatch(/^<svg/);
  });
});
