import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { figureWidth, fontSize } from '../../../src/cli/figure-flags.js';
import type { RunSummary } from '../../../src/run/summary.js';
import type { SweepResult } from '../../../src/sweep/result-row.js';
import type { SweepSpec } from '../../../src/sweep/sweep-folder.js';
import { criticalMapFigure } from '../../../src/ui/report/critical-map-figure.js';
import { figureConfig, fitSvgWidth, layOut, vegaLiteToSvg, wrapText } from '../../../src/ui/report/render.js';
import { anythingMoved } from '../../../src/ui/report/report.js';
import { v2xFigure } from '../../../src/ui/report/v2x-figure.js';

const spec: SweepSpec = {
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
  repeat: 1,
  baseSeed: 1,
  mode: { type: 'grid', points: [] },
  criteria: ['string-stability', 'collision'],
};

const run = (delay: number, loss: number): SweepResult => ({
  id: `p${delay}-${loss}`,
  key: `${delay}&${loss}`,
  gridIndex: 0,
  repeat: 0,
  seed: 1,
  runDir: '',
  status: 'completed',
  values: {
    'network.delay': { text: `${delay}ms`, value: delay, unit: 'ms' },
    'network.loss': { text: String(loss), value: loss, unit: '' },
  },
  min_ttc_s: 1,
  min_distance_m: 2,
  min_gap_m: 1 - delay / 400,
  collision: loss > 0.3 && delay > 100,
  first_collision_t_s: null,
  v2v_sent: 1,
  v2v_lost: 0,
  v2v_p50_ms: delay,
  v2v_p99_ms: delay,
  delivery_ratio: 1 - loss,
  beacon_age_mean_ms: 200 + delay,
  string_stability_worst: delay > 100 - loss * 200 ? 1.1 : 0.95,
  sim_time_s: 10,
  wall_time_s: 1,
  timing: {},
});

const results = [10, 100, 190].flatMap((d) => [0, 0.2, 0.4].map((l) => run(d, l)));

type Cells = { x: string; row: string; verdict: string; critical: boolean }[];

describe('figures for a paper', () => {
  it('draws a 2-D grid as a heatmap per criterion with each row’s first failing value outlined', async () => {
    const figure = criticalMapFigure(spec, results) as unknown as { concat: { data: { values: Cells } }[] };
    expect(figure.concat).toHaveLength(2);
    const stability = figure.concat[0].data.values;
    // unstable above 100 ms at loss 0, above 60 ms at 0.2, above 20 ms at 0.4
    expect(
      stability
        .filter((c) => c.critical)
        .map((c) => `${c.row}:${c.x}`)
        .sort(),
    ).toEqual(['0.2:100ms', '0.4:100ms', '0:190ms']);
    const collision = figure.concat[1].data.values;
    expect(collision.filter((c) => c.critical).map((c) => `${c.row}:${c.x}`)).toEqual(['0.4:190ms']);
    expect(collision.filter((c) => c.verdict === 'fail')).toHaveLength(1);
    // a one-field sweep has no map
    expect(criticalMapFigure({ ...spec, axes: [spec.axes[0]] }, results)).toBeUndefined();
    expect(await vegaLiteToSvg(figure as never)).toMatch(/^<svg/);
  });

  it('lays a figure out a column wide (3.5 in) within a few per cent, fonts at their size', async () => {
    const spec2 = await layOut((w) => criticalMapFigure(spec, results, w, 336), { widthIn: 3.5 });
    const natural = await vegaLiteToSvg(spec2!);
    const width = Number(/<svg[^>]*\swidth="([\d.]+)"/.exec(natural)![1]);
    expect(Math.abs(width - 336) / 336).toBeLessThan(0.1);
    const fitted = await vegaLiteToSvg(spec2!, { widthIn: 3.5 });
    expect(fitted).toMatch(/<svg[^>]*\swidth="336"/);
    expect(fitted).toMatch(/viewBox="0 0 /);
    expect(fitSvgWidth('<svg width="672" height="100"><g/></svg>', 3.5)).toBe(
      '<svg width="336" height="50" viewBox="0 0 672 100"><g/></svg>',
    );
    expect(figureConfig({ fontPt: 8 }).axis.labelFontSize).toBeCloseTo(8 * (96 / 72), 9);
    expect(wrapText('platoon-cacc-cam: critical V2V delay by frame loss probability', 336)).toEqual(expect.any(Array));
  });

  it('draws one V2X series per value of the second field, not one pooled line', () => {
    const figure = v2xFigure(spec, results, 0.58, 300, 336) as unknown as {
      columns: number;
      concat: { layer: { data: { values: { group: string }[] }; encoding: { color?: { field: string } } }[] }[];
    };
    const points = figure.concat[0].layer.at(-1)!;
    expect(new Set(points.data.values.map((v) => v.group))).toEqual(new Set(['0', '0.2', '0.4']));
    expect(points.encoding.color?.field).toBe('group');
    // a column holds one panel across
    expect(figure.columns).toBe(1);
  });

  it('reads --figure-width and --font-size, and refuses what is not a size', () => {
    expect(figureWidth('column')).toBe(3.5);
    expect(figureWidth('page')).toBe(7.16);
    expect(figureWidth('5in')).toBe(5);
    expect(fontSize('8pt')).toBe(8);
    for (const bad of ['wide', '0', '100']) expect(() => figureWidth(bad)).toThrow(InvalidArgumentError);
    expect(() => fontSize('2')).toThrow(InvalidArgumentError);
  });

  it('leaves out a kinematics figure of flat lines', () => {
    const flat = { summary: { collision: false } as RunSummary, vehicles: [0, 1, 2].map((t) => ({ t, vehicle: 'car0', speed: 10 })) };
    expect(anythingMoved(flat)).toBe(false);
    expect(anythingMoved({ ...flat, vehicles: [...flat.vehicles, { t: 3, vehicle: 'car0', speed: 9 }] })).toBe(true);
    expect(anythingMoved({ ...flat, summary: { collision: true } as RunSummary })).toBe(true);
  });
});
