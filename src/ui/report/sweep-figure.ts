import type { TopLevelSpec } from 'vega-lite';
import type { CriticalSearchResult } from '../../sweep/critical.js';
import type { SweepResult } from '../../sweep/result-row.js';
import { wilsonInterval } from '../../sweep/stats.js';
import type { SweepSpec } from '../../sweep/sweep-folder.js';
import { pointStats, sweptPaths } from '../../sweep/tables.js';
import { fieldTitle } from './field-names.js';

const VERDICT_COLOURS = { 'no collision': '#1f77b4', collision: '#d62728', 'invalid run': '#7f7f7f' } as const;
type Verdict = keyof typeof VERDICT_COLOURS;

const verdictOf = (r: SweepResult): Verdict | undefined =>
  r.status === 'completed' ? (r.collision ? 'collision' : 'no collision') : r.status === 'invalid' ? 'invalid run' : undefined;

/** Axis title of a swept field, by name and unit: `V2V delay [ms]`; with `spec`, the fields `--zip` advances with it too. */
export function axisTitle(path: string, results: readonly SweepResult[], spec?: SweepSpec): string {
  const title = (p: string) => fieldTitle(p, results.find((r) => r.values[p]?.unit)?.values[p].unit);
  const zipped = spec?.axes.find((a) => a.path === path)?.zipped ?? [];
  return [title(path), ...zipped.map((z) => title(z.path))].join(' with ');
}

/**
 * Closest approach (bumper-to-bumper gap, 0 = contact) and minimum TTC against the first swept
 * field: one mark per run (crosses for collisions; repeats spread sideways so none hides
 * another), a line through the per-point means, 95% intervals when repeated, and with more axes
 * one line per combination of the others. With repeats, the share of runs that collided with its
 * 95% Wilson interval. A critical search shades the bracket it found.
 */
export function sweepFigure(
  spec: SweepSpec,
  results: readonly SweepResult[],
  critical?: CriticalSearchResult,
  scenarioName = scenarioFileName(spec),
): TopLevelSpec {
  const [xPath, ...others] = sweptPaths(spec);
  const numeric = results.every((r) => r.values[xPath]?.value !== undefined);
  const groupOf = (values: SweepResult['values']) =>
    others.length === 1 ? values[others[0]]?.text : others.map((p) => `${p.split('.').pop()}=${values[p]?.text}`).join(', ') || 'all';
  const xOf = (values: SweepResult['values']) => (numeric ? values[xPath].value : values[xPath].text);
  const grouped = others.length > 0;

  // Runs measured before the gap existed fall back to the centre distance (and the axis says so).
  const gaps = results.every((r) => r.min_gap_m !== undefined && r.min_gap_m !== null);
  const closestOf = (r: SweepResult) => (gaps ? r.min_gap_m! : r.min_distance_m);
  const spread = repeatSpread(results, xPath, numeric);
  const runs = results.flatMap((r) => {
    const verdict = verdictOf(r);
    if (!verdict) return [];
    const x = numeric ? (xOf(r.values) as number) + spread(r) : xOf(r.values);
    return [
      { layer: 'run', metric: 'distance', x, y: closestOf(r), verdict, group: groupOf(r.values), run: r.id, repeat: r.repeat },
      { layer: 'run', metric: 'ttc', x, y: r.min_ttc_s, verdict, group: groupOf(r.values), run: r.id, repeat: r.repeat },
    ].filter((d) => d.y !== null);
  });
  const means = pointStats(spec, results).flatMap((s) =>
    (
      [
        ['distance', gaps ? s.minGap : s.minDistance],
        ['ttc', s.minTtc],
      ] as const
    ).flatMap(([metric, m]) =>
      m.mean === null
        ? []
        : [
            {
              layer: 'mean',
              metric,
              x: xOf(s.values),
              y: m.mean,
              lo: m.lo95 ?? m.mean,
              hi: m.hi95 ?? m.mean,
              ci: m.ci95 !== null,
              group: groupOf(s.values),
            },
          ],
    ),
  );
  const repeated = means.some((m) => m.ci);
  const rates = pointStats(spec, results).flatMap((s) =>
    s.valid
      ? [{ layer: 'rate', x: xOf(s.values), y: s.collisions / s.valid, ...wilsonInterval(s.collisions, s.valid), group: groupOf(s.values) }]
      : [],
  );
  const present = (Object.keys(VERDICT_COLOURS) as Verdict[]).filter((v) => runs.some((r) => r.verdict === v));
  const SHAPES: Record<Verdict, string> = { 'no collision': 'circle', collision: 'cross', 'invalid run': 'triangle-up' };

  const xEnc = {
    field: 'x',
    type: numeric ? 'quantitative' : 'ordinal',
    title: axisTitle(xPath, results, spec),
    scale: numeric ? { zero: false, nice: false, padding: 14 } : undefined,
  } as const;
  const shape = {
    field: 'verdict',
    type: 'nominal',
    title: null,
    scale: { domain: present, range: present.map((v) => SHAPES[v]) },
  } as const;
  const verdictColour = {
    field: 'verdict',
    type: 'nominal',
    title: null,
    scale: { domain: present, range: present.map((v) => VERDICT_COLOURS[v]) },
  } as const;
  const groupColour = {
    field: 'group',
    type: 'nominal',
    title: others.join(', '),
    sort: null,
    legend: { titleLimit: 600, labelLimit: 400 },
  } as const;

  const panel = (metric: 'distance' | 'ttc', yTitle: string) => ({
    width: 320,
    height: 220,
    layer: [
      ...(metric === 'distance' && gaps
        ? [
            {
              data: { values: [{ y: 0, label: 'contact (collision)' }] },
              mark: { type: 'rule', color: '#d62728', strokeDash: [4, 3] },
              encoding: { y: { field: 'y', type: 'quantitative' } },
            },
            {
              data: { values: [{ y: 0, label: 'contact (collision)' }] },
              mark: { type: 'text', align: 'left', baseline: 'bottom', dx: 4, dy: -2, color: '#d62728', fontSize: 11 },
              encoding: { y: { field: 'y', type: 'quantitative' }, x: { value: 0 }, text: { field: 'label' } },
            },
          ]
        : []),
      ...(critical?.status === 'found'
        ? [
            {
              data: { values: [{ lo: critical.lastSafe, hi: critical.firstCollision }] },
              mark: { type: 'rect', color: '#d62728', opacity: 0.12 },
              encoding: { x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } },
            },
          ]
        : []),
      {
        transform: [{ filter: `datum.layer === 'mean' && datum.metric === '${metric}'` }],
        mark: { type: 'line', strokeWidth: 1.5, color: grouped ? undefined : '#444' },
        encoding: {
          x: xEnc,
          y: { field: 'y', type: 'quantitative' },
          ...(grouped ? { color: groupColour } : {}),
          detail: { field: 'group' },
        },
      },
      ...(repeated
        ? [
            {
              transform: [{ filter: `datum.layer === 'mean' && datum.metric === '${metric}' && datum.ci` }],
              mark: { type: 'errorbar', ticks: true, color: grouped ? undefined : '#444' },
              encoding: {
                x: xEnc,
                y: { field: 'lo', type: 'quantitative', title: yTitle },
                y2: { field: 'hi' },
                ...(grouped ? { color: groupColour } : {}),
              },
            },
          ]
        : []),
      {
        transform: [{ filter: `datum.layer === 'run' && datum.metric === '${metric}'` }],
        mark: { type: 'point', filled: true, size: 70, opacity: repeated ? 0.55 : 0.95, strokeWidth: 2 },
        encoding: {
          x: xEnc,
          y: { field: 'y', type: 'quantitative', title: yTitle, scale: { zero: true } },
          shape,
          color: grouped ? groupColour : verdictColour,
        },
      },
    ],
  });

  // With repeats, the share of seeds that collided says more than the mean of a two-valued outcome.
  const ratePanel = {
    width: 220,
    height: 220,
    transform: [{ filter: "datum.layer === 'rate'" }],
    layer: [
      {
        mark: { type: 'line', strokeWidth: 1.5, color: grouped ? undefined : '#d62728' },
        encoding: {
          x: xEnc,
          y: { field: 'y', type: 'quantitative', title: 'share of runs that collided', scale: { domain: [0, 1] }, axis: { format: '.0%' } },
          ...(grouped ? { color: groupColour } : {}),
          detail: { field: 'group' },
        },
      },
      {
        mark: { type: 'errorbar', ticks: true, color: grouped ? undefined : '#d62728' },
        encoding: {
          x: xEnc,
          y: { field: 'lo', type: 'quantitative', title: 'share of runs that collided' },
          y2: { field: 'hi' },
          ...(grouped ? { color: groupColour } : {}),
        },
      },
      {
        mark: { type: 'point', filled: true, size: 50, color: grouped ? undefined : '#d62728' },
        encoding: { x: xEnc, y: { field: 'y', type: 'quantitative' }, ...(grouped ? { color: groupColour } : {}) },
      },
    ],
  };
  const subtitle = [
    `${results.length} runs${spec.repeat > 1 ? `, ${spec.repeat} seeds per value (spread sideways); bars: 95% interval of the mean; collided share with its 95% Wilson interval` : ''}`,
    critical?.status === 'found'
      ? `shaded: critical ${critical.path} between ${+critical.lastSafe!.toFixed(3)} and ${+critical.firstCollision!.toFixed(3)} ${critical.unit}${critical.monotonic ? '' : ' (outcome NOT monotonic)'}`
      : '',
  ].filter(Boolean);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `${scenarioName}: closest approach against ${axisTitle(xPath, results).replace(/ \[.*\]$/, '')}`,
      subtitle,
      subtitleColor: '#555',
      subtitleFontSize: 12,
    },
    data: { values: [...runs, ...means, ...rates] },
    hconcat: [
      panel('distance', gaps ? 'closest bumper-to-bumper gap [m]' : 'minimum centre distance [m]'),
      panel('ttc', 'minimum time to collision [s]'),
      ...(spec.repeat > 1 ? [ratePanel] : []),
    ],
    resolve: { scale: { color: 'shared', shape: 'shared' } },
  } as unknown as TopLevelSpec;
}

/** The scenario file's name, for sweeps whose runs do not say the scenario's own name. */
export function scenarioFileName(spec: SweepSpec): string {
  return spec.scenario
    .split('/')
    .pop()!
    .replace(/\.ya?ml$/, '');
}

/**
 * Sideways offsets for repeats of one value, a fraction of the smallest step between swept values,
 * so runs of the same point sit side by side instead of on top of each other.
 */
function repeatSpread(results: readonly SweepResult[], path: string, numeric: boolean): (r: SweepResult) => number {
  const repeats = Math.max(...results.map((r) => r.repeat)) + 1;
  if (!numeric || repeats < 2) return () => 0;
  const xs = [...new Set(results.map((r) => r.values[path].value as number))].sort((a, b) => a - b);
  const step = xs.slice(1).reduce((m, x, i) => Math.min(m, x - xs[i]), Infinity);
  const width = Number.isFinite(step) ? step * 0.3 : 0;
  return (r) => (repeats > 1 ? (r.repeat / (repeats - 1) - 0.5) * width : 0);
}
