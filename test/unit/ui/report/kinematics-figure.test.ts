import { describe, expect, it } from 'vitest';
import { kinematicsFigure } from '../../../../src/ui/report/kinematics-figure.js';
import type { RunTraces } from '../../../../src/ui/report/read-run.js';
import { vegaLiteToSvg } from '../../../../src/ui/report/render.js';

/**
 * A fleet of `n` cars on a line, 8 m apart, 2 s of samples; `platoon` gives each car after the
 * first a cacc app following the car ahead, as a platoon block writes them.
 */
function fleet(n: number, platoon: boolean): RunTraces {
  const names = Array.from({ length: n }, (_, i) => `car${i}`);
  const vehicles = names.map((name, i) => ({
    name,
    apps: platoon && i > 0 ? [{ type: 'cacc', predecessor: names[i - 1] }] : [{ type: 'beacon' }],
  }));
  const ts = Array.from({ length: 21 }, (_, k) => k / 10);
  const pairs = ts.flatMap((t) =>
    names.flatMap((a, i) =>
      names.slice(i + 1).map((b, k) => {
        const gap = 8 * (k + 1) - 0.58 - t * (i % 3);
        return { t, pair: `${a}–${b}`, distance: gap + 0.58, gap, ttc: 5 + i };
      }),
    ),
  );
  return {
    dir: '/nowhere',
    summary: {
      run_id: 'r',
      scenario: 's',
      duration_s: 2,
      first_collision_t_s: null,
      collision: false,
      parameters: { vehicles },
    } as unknown as RunTraces['summary'],
    vehicles: ts.flatMap((t) => names.map((vehicle, i) => ({ t, vehicle, speed: 10 - i * 0.1 }))),
    pairs,
    events: [],
    deliveries: [],
  };
}

type Spec = {
  data: { values: { panel: string; series?: string }[] };
  hconcat: { spec: { layer: { encoding?: { color?: { scale: { domain: string[] } } } }[] } }[];
  title: { subtitle: string[] };
};
const seriesIn = (spec: Spec, panel: string) => [...new Set(spec.data.values.filter((d) => d.panel === panel).map((d) => d.series))];
const legend = (spec: Spec) => spec.hconcat[0].spec.layer[0].encoding!.color!.scale.domain;
const svgSize = (svg: string) => {
  const m = /<svg[^>]*\swidth="([\d.]+)"[^>]*\sheight="([\d.]+)"/.exec(svg)!;
  return { width: Number(m[1]), height: Number(m[2]) };
};

describe('kinematics figure of a fleet', () => {
  it('draws a platoon on its neighbouring pairs, leader to last follower, and says what it left out', () => {
    const spec = kinematicsFigure([{ label: 'delay 10 ms', traces: fleet(6, true) }]) as unknown as Spec;
    const neighbours = ['car0–car1', 'car1–car2', 'car2–car3', 'car3–car4', 'car4–car5'];
    expect(seriesIn(spec, 'distance')).toEqual(neighbours);
    expect(seriesIn(spec, 'ttc')).toEqual(neighbours);
    expect(seriesIn(spec, 'speed')).toEqual(['car0', 'car1', 'car2', 'car3', 'car4', 'car5']);
    expect(legend(spec)).toEqual(['car0', 'car1', 'car2', 'car3', 'car4', 'car5', ...neighbours]);
    expect(spec.title.subtitle.join('\n')).toMatch(/each follower and the car it follows \(10 other pairs left out\)/);
  });

  it('shows a larger fleet that is no platoon on its closest approaches, and says so', () => {
    const traces = fleet(12, false);
    const spec = kinematicsFigure([{ label: 'run', traces }]) as unknown as Spec;
    const shown = seriesIn(spec, 'distance') as string[];
    expect(shown).toHaveLength(6);
    const closest = new Map<string, number>();
    for (const p of traces.pairs) closest.set(p.pair, Math.min(closest.get(p.pair) ?? Infinity, p.gap ?? Infinity));
    const ranked = [...closest.entries()].sort((a, b) => a[1] - b[1]);
    // every pair drawn comes at least as close as every pair left out
    const worstShown = Math.max(...shown.map((p) => closest.get(p)!));
    const bestLeftOut = Math.min(...ranked.filter(([p]) => !shown.includes(p)).map(([, d]) => d));
    expect(worstShown).toBeLessThanOrEqual(bestLeftOut);
    expect(spec.title.subtitle.join('\n')).toMatch(/the 6 of 66 with the closest approach \(60 left out\)/);
    expect(seriesIn(spec, 'speed').length).toBeLessThanOrEqual(8);
    expect(spec.title.subtitle.join('\n')).toMatch(/speed: 8 of 12 cars/);
  });

  it.each([
    [6, true],
    [4, false],
    [12, false],
    [32, true],
  ])('stays within a page width with %i cars (platoon: %s), its legend at most 14 entries in rows of 6', async (n, platoon) => {
    const spec = kinematicsFigure([{ label: 'a run', traces: fleet(n, platoon) }]);
    const { width, height } = svgSize(await vegaLiteToSvg(spec));
    expect(width).toBeLessThanOrEqual(1000);
    expect(height).toBeLessThanOrEqual(450);
    expect(legend(spec as unknown as Spec).length).toBeLessThanOrEqual(14);
  });
});
