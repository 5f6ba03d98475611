import type { TopLevelSpec } from 'vega-lite';
import { parseCriteria } from '../../sweep/criteria.js';
import { criticalCurve, pointVerdicts } from '../../sweep/criterion-answer.js';
import type { SweepResult } from '../../sweep/result-row.js';
import type { SweepSpec } from '../../sweep/sweep-folder.js';
import { orderResults, sweptPaths } from '../../sweep/tables.js';
import { wrapText } from './render.js';
import { axisTitle, scenarioFileName } from './sweep-figure.js';

const COLOURS = { pass: '#c6dbef', fail: '#d62728', 'not measured': '#eeeeee' } as const;

/**
 * A grid of two or more swept fields as a heatmap per criterion: the first field across, the
 * others down, each cell passing or failing (with repeats, the share of runs failing), and the
 * critical value of each row (its first failing cell) outlined: the critical curve.
 * Undefined for a one-field sweep (the closest-approach figure answers it).
 */
export function criticalMapFigure(
  spec: SweepSpec,
  results: readonly SweepResult[],
  widthPx?: number,
  titleWidthPx = widthPx,
): TopLevelSpec | undefined {
  const paths = sweptPaths(spec);
  if (paths.length < 2 || spec.mode.type !== 'grid') return undefined;
  const [x, ...others] = paths;
  const valid = orderResults(
    spec,
    results.filter((r) => r.status === 'completed'),
  );
  const rowOf = (values: SweepResult['values']) =>
    others.map((p) => (others.length > 1 ? `${p.split('.').pop()}=${values[p]?.text}` : values[p]?.text)).join(', ');
  const xOrder = [...new Set(valid.map((r) => r.values[x].text))];
  const rowOrder = [...new Set(orderRows(valid, others).map((r) => rowOf(r.values)))];
  const criteria = parseCriteria(spec.criteria);
  // Panels side by side when the width allows, else one under the other.
  const columns = widthPx !== undefined && widthPx < 600 ? 1 : Math.min(criteria.length, 3);
  const panelWidth = widthPx === undefined ? Math.max(200, xOrder.length * 28) : Math.max(60, widthPx / columns);
  const panels = criteria.map((c) => {
    const verdicts = pointVerdicts(c, paths, valid);
    const curve = criticalCurve(paths, verdicts);
    const critical = new Set(curve.filter((cut) => cut.first_fail !== null).map((cut) => `${cut.first_fail}&${rowOf(cutValues(cut, x))}`));
    const cells = verdicts.map((v) => {
      const row = rowOf(v.values);
      return {
        x: v.values[x].text,
        row,
        verdict: v.fails === null ? 'not measured' : v.fails ? 'fail' : 'pass',
        share: v.measured > 1 ? `${v.failing}/${v.measured}` : '',
        critical: critical.has(`${v.values[x].text}&${row}`),
      };
    });
    const xEnc = { field: 'x', type: 'ordinal', title: axisTitle(x, results), sort: xOrder, axis: { labelAngle: -45 } };
    const yEnc = {
      field: 'row',
      type: 'ordinal',
      title: others.length === 1 ? axisTitle(others[0], results) : others.join(', '),
      sort: rowOrder,
    };
    return {
      title: { text: wrapText(`${c.name}: ${c.bad} (red)`, titleWidthPx, 12), fontSize: 12 },
      width: panelWidth,
      height: { step: 24 },
      data: { values: cells },
      layer: [
        {
          mark: { type: 'rect', stroke: 'white', strokeWidth: 1 },
          encoding: {
            x: xEnc,
            y: yEnc,
            color: {
              field: 'verdict',
              type: 'nominal',
              title: null,
              scale: { domain: Object.keys(COLOURS), range: Object.values(COLOURS) },
            },
          },
        },
        {
          transform: [{ filter: 'datum.critical' }],
          mark: { type: 'rect', fillOpacity: 0, stroke: 'black', strokeWidth: 2 },
          encoding: { x: xEnc, y: yEnc },
        },
        {
          transform: [{ filter: "datum.share != ''" }],
          mark: { type: 'text', fontSize: 8, color: '#222' },
          encoding: { x: xEnc, y: yEnc, text: { field: 'share' } },
        },
      ],
    };
  });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: wrapText(
        `${scenarioFileName(spec)}: critical ${axisTitle(x, results).replace(/ \[.*\]$/, '')} by ${others.map((p) => axisTitle(p, results).replace(/ \[.*\]$/, '')).join(', ')}`,
        titleWidthPx,
      ),
      subtitle: wrapText(
        `outlined: the first failing value of each row${spec.repeat > 1 ? '; a cell fails when any of its runs does (failing/runs)' : ''}`,
        titleWidthPx,
        12,
      ),
      subtitleColor: '#555',
    },
    concat: panels,
    columns,
    resolve: { scale: { color: 'shared' } },
  } as unknown as TopLevelSpec;
}

const cutValues = (cut: { at: Record<string, string> }, _x: string) =>
  Object.fromEntries(Object.entries(cut.at).map(([p, text]) => [p, { text }])) as SweepResult['values'];

/** Rows in the order of the other fields' values (numbers by value). */
function orderRows(results: readonly SweepResult[], others: readonly string[]): SweepResult[] {
  return [...results].sort((a, b) => {
    for (const p of others) {
      const [va, vb] = [a.values[p], b.values[p]];
      const d = va?.value !== undefined && vb?.value !== undefined ? va.value - vb.value : (va?.text ?? '').localeCompare(vb?.text ?? '');
      if (d) return d;
    }
    return 0;
  });
}
