import type { TopLevelSpec } from 'vega-lite';
import type { SweepResult } from '../../sweep/result-row.js';
import type { SweepSpec } from '../../sweep/sweep-folder.js';
import { sweptPaths } from '../../sweep/tables.js';
import { wrapText } from './render.js';
import { axisTitle, scenarioFileName } from './sweep-figure.js';

type Metric = 'min_gap_m' | 'beacon_age_mean_ms' | 'delivery_ratio' | 'string_stability_worst';

const PANELS: { metric: Metric; title: string; rule?: (carLength: number) => { y: number; label: string } }[] = [
  { metric: 'min_gap_m', title: 'smallest bumper-to-bumper gap [m]', rule: (carLength) => ({ y: carLength, label: 'one car length' }) },
  { metric: 'beacon_age_mean_ms', title: 'beacon age of information, mean [ms]' },
  { metric: 'delivery_ratio', title: 'delivery ratio' },
  { metric: 'string_stability_worst', title: 'worst string-stability ratio', rule: () => ({ y: 1, label: 'stable below' }) },
];

/**
 * The V2X figures a sweep has data for, against its first swept field, one series (colour and
 * line) per value of the other fields; undefined when it has none. `widthPx`: the width to lay the
 * panels out for (two per row below 600 px).
 */
export function v2xFigure(
  spec: SweepSpec,
  results: readonly SweepResult[],
  carLength: number,
  widthPx?: number,
  titleWidthPx = widthPx,
): TopLevelSpec | undefined {
  const [xPath, ...others] = sweptPaths(spec);
  const groupOf = (r: SweepResult) =>
    others.length === 1 ? r.values[others[0]]?.text : others.map((p) => `${p.split('.').pop()}=${r.values[p]?.text}`).join(', ');
  const grouped = others.length > 0;
  const numeric = results.every((r) => r.values[xPath]?.value !== undefined);
  const xOf = (r: SweepResult) => (numeric ? r.values[xPath].value : r.values[xPath].text);
  const verdict = (r: SweepResult) => (r.collision ? 'collision' : 'no collision');
  const panels = PANELS.filter((p) => results.some((r) => typeof r[p.metric] === 'number'));
  if (!panels.length) return undefined;
  const narrow = titleWidthPx !== undefined && titleWidthPx < 600;
  // A column holds one panel across: each panel's axes take about 130 px beside it.
  const columns = narrow ? 1 : panels.length;
  const panelWidth = widthPx === undefined ? 220 : Math.max(40, widthPx / columns);
  const xEnc = {
    field: 'x',
    type: numeric ? 'quantitative' : 'ordinal',
    title: axisTitle(xPath, results, spec),
    scale: numeric ? { zero: false, nice: false, padding: 14 } : undefined,
  } as const;
  const colour = grouped
    ? ({ field: 'group', type: 'nominal', title: others.map((p) => axisTitle(p, results)).join(', ') } as const)
    : ({
        field: 'verdict',
        type: 'nominal',
        title: null,
        scale: { domain: ['no collision', 'collision'], range: ['#1f77b4', '#d62728'] },
      } as const);
  // The series' legend alone at the bottom (a second one beside it would set the figure's width); the subtitle names the crosses.
  const shape = {
    field: 'verdict',
    type: 'nominal',
    title: null,
    legend: null,
    scale: { domain: ['no collision', 'collision'], range: ['circle', 'cross'] },
  } as const;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: wrapText(`${scenarioFileName(spec)}: V2X figures against ${xPath}`, titleWidthPx),
      subtitle: wrapText(
        `${results.length} runs${grouped ? `; one line per ${others.join(', ')}; crosses: runs that collided` : ''}`,
        titleWidthPx,
        12,
      ),
      subtitleColor: '#555',
    },
    columns,
    concat: panels.map((p) => {
      const values = results.flatMap((r) =>
        typeof r[p.metric] === 'number' ? [{ x: xOf(r), y: r[p.metric], verdict: verdict(r), group: groupOf(r) || 'all' }] : [],
      );
      const rule = p.rule?.(carLength);
      return {
        // Narrow: the metric's name over the panel, since a vertical axis title longer than the panel sets the row's height.
        ...(narrow ? { title: { text: p.title, fontSize: 11, fontWeight: 'normal' } } : {}),
        width: panelWidth,
        height: narrow ? 110 : 200,
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
            mark: { type: 'line', strokeWidth: 1, ...(grouped ? {} : { color: '#444' }) },
            encoding: {
              x: xEnc,
              y: { field: 'y', type: 'quantitative', aggregate: 'mean' },
              ...(grouped ? { color: colour, detail: { field: 'group' } } : {}),
            },
          },
          {
            data: { values },
            mark: { type: 'point', filled: true, size: grouped ? 30 : 60 },
            encoding: {
              x: xEnc,
              y: { field: 'y', type: 'quantitative', title: narrow ? null : p.title, scale: { zero: true } },
              color: colour,
              ...(grouped ? { shape } : {}),
            },
          },
        ],
      };
    }),
    resolve: { scale: { color: 'shared', shape: 'shared' } },
    ...(narrow ? { config: { legend: { titleOrient: 'top' } } } : {}),
  } as unknown as TopLevelSpec;
}
