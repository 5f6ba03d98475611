import type { TopLevelSpec } from 'vega-lite';
import { groupBy } from '../../util/group-by.js';
import { chooseSeries } from './figure-series.js';
import type { RunTraces } from './read-run.js';

/** One row of the figure: a run and the label naming it (e.g. "delay 100ms"). */
export interface LabelledRun {
  label: string;
  traces: RunTraces;
}

const MAX_POINTS_PER_SERIES = 400;
const PANEL = { width: 230, height: 130 };
const COLLISION_COLOUR = '#d62728';
/** Cars in colours far from the collision red; pairs (distance, TTC) in dark neutral tones. */
const CAR_COLOURS = ['#1f77b4', '#2ca02c', '#ff7f0e', '#9467bd', '#17becf', '#8c564b', '#bcbd22', '#e377c2'];
const PAIR_COLOURS = ['#222222', '#7f7f7f', '#5b4a8b', '#a0522d'];
/** Dash patterns by series, so lines that coincide (cars at equal speeds) stay distinguishable. */
const DASHES = [[], [7, 3], [2, 2], [10, 3, 2, 3], [4, 4], [1, 3]];
/** TTC is shown up to this, or 3 x the largest brake threshold: cars that never close have TTCs of 1e8 s. */
const TTC_AXIS_CAP_S = 10;
/** Legend entries per row: the legend wraps under the panels instead of widening the figure. */
const LEGEND_COLUMNS = 6;

/** Every k-th sample, so a series has at most MAX_POINTS_PER_SERIES points; the last is always kept. */
function thin<T>(xs: readonly T[]): T[] {
  const k = Math.max(1, Math.ceil(xs.length / MAX_POINTS_PER_SERIES));
  return xs.filter((_, i) => i % k === 0 || i === xs.length - 1);
}

/** TTC thresholds of the scenario's brake senders, drawn as a dotted line in the TTC panel. */
function ttcThresholds(traces: RunTraces): number[] {
  const apps = traces.summary.parameters?.vehicles?.flatMap((v) => v.apps ?? []) ?? [];
  return [...new Set(apps.flatMap((a) => ('threshold' in a && typeof a.threshold === 'number' ? [a.threshold] : [])))];
}

/**
 * Speed, time to collision and bumper-to-bumper gap over time, one row per run, like figures 4.4 and 4.5 of
 * the thesis. Dashed rules mark when each car starts braking, a red rule the collision. Each
 * column shares its y scale across rows so runs compare at a glance.
 */
export function kinematicsFigure(runs: readonly LabelledRun[], title?: string, notes: readonly string[] = []): TopLevelSpec {
  const rows = runs.map((r) => r.label);
  const data: Record<string, unknown>[] = [];
  const ttcSamples: { run: string; panel: 'ttc'; series: string; t: number; value: number }[] = [];
  let ttcTop = 0;
  let centreDistances = false;
  let duration = 0;
  const thresholds = new Set<number>();
  const choice = chooseSeries(runs.map((r) => r.traces));
  const shownCars = new Set(choice.cars);
  const shownPairs = new Set(choice.pairs);
  for (const { label, traces } of runs) {
    for (const [vehicle, samples] of groupBy(traces.vehicles, (s) => s.vehicle)) {
      if (!shownCars.has(vehicle)) continue;
      for (const s of thin(samples)) data.push({ run: label, panel: 'speed', series: vehicle, t: s.t, value: s.speed });
    }
    for (const [pair, samples] of groupBy(traces.pairs, (s) => s.pair)) {
      if (!shownPairs.has(pair)) continue;
      const gaps = samples.every((s) => s.gap !== null);
      if (!gaps) centreDistances = true;
      for (const s of thin(samples)) {
        data.push({ run: label, panel: 'distance', series: pair, t: s.t, value: gaps ? s.gap : s.distance });
        if (s.ttc !== null && Number.isFinite(s.ttc)) ttcSamples.push({ run: label, panel: 'ttc', series: pair, t: s.t, value: s.ttc });
      }
      const first = samples.find((s) => s.ttc !== null);
      if (first?.ttc) ttcTop = Math.max(ttcTop, first.ttc);
    }
    for (const e of traces.events.filter((e) => e.event === 'emergency-brake' && shownCars.has(e.vehicle)))
      data.push({ run: label, panel: 'rule', series: e.vehicle, t: e.t, kind: `${e.vehicle} brakes` });
    const hit = traces.summary.first_collision_t_s;
    if (hit !== null && hit !== undefined) data.push({ run: label, panel: 'collision', t: hit, kind: 'collision' });
    for (const th of ttcThresholds(traces)) thresholds.add(th);
    duration = Math.max(duration, traces.summary.duration_s ?? 0, ...traces.vehicles.slice(-1).map((v) => v.t));
  }
  // TTC grows without bound as the closing speed falls to zero; show it up to its starting value, capped.
  const cap = Math.max(TTC_AXIS_CAP_S, 3 * Math.max(0, ...thresholds));
  const ttcMax = Math.max(1, Math.ceil(Math.min(ttcTop || 5, cap) * 1.25));
  // Clamped just above the panel and clipped: renderers drop paths with coordinates far outside.
  for (const s of ttcSamples) data.push({ ...s, value: Math.min(s.value, ttcMax * 1.1) });
  for (const th of thresholds) for (const label of rows) data.push({ run: label, panel: 'threshold', value: th });

  const x = { field: 't', type: 'quantitative', title: 'time [s]', scale: { domain: [0, duration || 1], nice: false } } as const;
  const { cars, pairs } = choice;
  const color = {
    field: 'series',
    type: 'nominal',
    title: null,
    scale: {
      domain: [...cars, ...pairs],
      range: [...cars.map((_, i) => CAR_COLOURS[i % CAR_COLOURS.length]), ...pairs.map((_, i) => PAIR_COLOURS[i % PAIR_COLOURS.length])],
    },
    legend: {
      orient: 'bottom',
      direction: 'horizontal',
      columns: Math.min(LEGEND_COLUMNS, cars.length + pairs.length),
      symbolStrokeWidth: 2,
      symbolSize: 300,
      labelLimit: 140,
    },
  } as const;
  const series = [...cars, ...pairs];
  const strokeDash = {
    field: 'series',
    type: 'nominal',
    title: null,
    scale: { domain: series, range: series.map((_, i) => DASHES[i % DASHES.length]) },
  } as const;
  const markers = [
    {
      transform: [{ filter: "datum.panel === 'rule'" }],
      mark: { type: 'rule', strokeDash: [5, 3], strokeWidth: 1.2 },
      encoding: { x, color },
    },
    {
      transform: [{ filter: "datum.panel === 'collision'" }],
      mark: { type: 'rule', color: COLLISION_COLOUR, strokeWidth: 1.6 },
      encoding: { x },
    },
  ];
  const column = (panel: string, yTitle: string, extra: object[] = [], yScale: object = {}, firstColumn = false) => ({
    facet: {
      row: {
        field: 'run',
        type: 'nominal',
        sort: rows,
        title: null,
        header: {
          labelAngle: 0,
          labelAlign: 'left',
          labelAnchor: 'start',
          labelOrient: 'top',
          labelPadding: 4,
          labelFontSize: 13,
          labelFontWeight: 'bold',
          ...(firstColumn ? {} : { labelExpr: "''" }),
        },
      },
    },
    spec: {
      width: PANEL.width,
      height: PANEL.height,
      layer: [
        {
          transform: [{ filter: `datum.panel === '${panel}'` }],
          mark: { type: 'line', strokeWidth: 1.8, clip: true },
          encoding: { x, y: { field: 'value', type: 'quantitative', title: yTitle, scale: yScale }, color, strokeDash },
        },
        ...extra,
        ...markers,
      ],
    },
  });
  const contactLayer = {
    data: { values: [{ value: 0, label: 'contact' }] },
    mark: { type: 'rule', color: COLLISION_COLOUR, strokeDash: [4, 3], opacity: 0.8 },
    encoding: { y: { field: 'value', type: 'quantitative' } },
  };
  const thresholdLayer = {
    transform: [{ filter: "datum.panel === 'threshold'" }],
    mark: { type: 'rule', strokeDash: [2, 2], color: '#555' },
    encoding: { y: { field: 'value', type: 'quantitative' } },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title ?? 'Speed, time to collision and gap',
      subtitle: [
        'vertical dashed: a car starts braking · red: collision',
        [
          thresholds.size ? 'dotted: TTC threshold of the brake sender' : '',
          centreDistances ? '' : 'gap 0 (red dashed): contact',
          ttcTop > cap ? `TTC shown up to ${ttcMax} s` : '',
        ]
          .filter(Boolean)
          .join(' · '),
        ...choice.notes,
        ...notes,
      ].filter(Boolean),
      subtitleColor: '#555',
      subtitleFontSize: 12,
    },
    data: { values: data },
    hconcat: [
      column('speed', 'speed [m/s]', [], { zero: true }, true),
      column('ttc', 'time to collision [s]', thresholds.size ? [thresholdLayer] : [], { domain: [0, ttcMax], nice: false }),
      column('distance', centreDistances ? 'centre distance [m]' : 'bumper-to-bumper gap [m]', centreDistances ? [] : [contactLayer], {
        zero: true,
      }),
    ],
    resolve: { scale: { color: 'shared', strokeDash: 'shared' } },
  } as unknown as TopLevelSpec;
}
