import type { TopLevelSpec } from 'vega-lite';
import type { SweepResult } from '../../sweep/result-row.js';
import type { SweepSpec } from '../../sweep/sweep-folder.js';
import { sweptPaths } from '../../sweep/tables.js';
import { axisTitle } from './sweep-figure.js';

type Metric = 'min_gap_m' | 'beacon_age_mean_ms' | 'delivery_ratio' | 'string_stability_worst';

const PANELS: { metric: Metric; title: string; rule?: (carLength: number) => { y: number; label: string } }[] = [
  { metric: 'min_gap_m', title: 'smallest bumper-to-bumper gap [m]', rule: (carLength) => ({ y: carLength, label: 'one car length' }) },
  { metric: 'beacon_age_mean_ms', title: 'beacon age of information, mean [ms]' },
  { metric: 'delivery_ratio', title: 'delivery ratio' },
  { metric: 'string_stability_worst', title: 'worst string-stability ratio', rule: () => ({ y: 1, label: 'stable below' }) },
];

/** The V2X figures a sweep has data for, against its first swept field; undefined when it has none. */
export function v2xFigure(spec: SweepSpec, results: readonly SweepResult[], carLength: number): TopLevelSpec | undefined {
  const [xPath] = sweptPaths(spec);
  const numeric = results.every((r) => r.values[xPath]?.value !== undefined);
  const xOf = (r: SweepResult) => (numeric ? r.values[xPath].value : r.values[xPath].text);
  const verdict = (r: SweepResult) => (r.collision ? 'collision' : 'no collision');
  const panels = PANELS.filter((p) => results.some((r) => typeof r[p.metric] === 'number'));
  if (!panels.length) return undefined;
  const xEnc = {
    field: 'x',
    type: numeric ? 'quantitative' : 'ordinal',
    title: axisTitle(xPath, results),
    scale: numeric ? { zero: false, nice: false, padding: 14 } : undefined,
  } as const;
  const colour = {
    field: 'verdict',
    type: 'nominal',
    title: null,
    scale: { domain: ['no collision', 'collision'], range: ['#1f77b4', '#d62728'] },
  } as const;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `${spec.scenario
        .split('/')
        .pop()!
        .replace(/\.ya?ml$/, '')}: V2X figures against ${xPath}`,
      subtitle: `${results.length} runs`,
      subtitleColor: '#555',
    },
    hconcat: panels.map((p) => {
      const values = results.flatMap((r) => (typeof r[p.metric] === 'number' ? [{ x: xOf(r), y: r[p.metric], verdict: verdict(r) }] : []));
      const rule = p.rule?.(carLength);
      return {
        width: 220,
        height: 200,
        layer: [
          ...(rule
            ? [
                {
                  data: { values: [rule] },
                  mark: { type: 'rule', strokeDash: [4, 3], color: '#888' },
                  encoding: { y: { field: 'y', type: 'quantitative' } },
                },
                {
                  data: { values: [rule] },
                  mark: { type: 'text', align: 'left', dx: 4, dy: -6, color: '#666', fontSize: 10 },
                  encoding: { y: { field: 'y', type: 'quantitative' }, x: { value: 0 }, text: { field: 'label' } },
                },
              ]
            : []),
          {
            data: { values },
            mark: { type: 'line', color: '#444', strokeWidth: 1 },
            encoding: { x: xEnc, y: { field: 'y', type: 'quantitative', aggregate: 'mean' } },
          },
          {
            data: { values },
            mark: { type: 'point', filled: true, size: 60 },
            encoding: { x: xEnc, y: { field: 'y', type: 'quantitative', title: p.title, scale: { zero: true } }, color: colour },
          },
        ],
      };
    }),
    resolve: { scale: { color: 'shared' } },
  } as unknown as TopLevelSpec;
}
