import type { TopLevelSpec } from 'vega-lite';
import type { BinnedOutcomes } from '../../measurement/binned-outcomes.js';
import { DELIVERY_OUTCOMES } from '../../run/delivery-distance-file.js';

/** One V2V row as v2v.csv has it: how far apart the cars were when it was sent, and whether it arrived. */
export interface DeliveryAtDistance {
  distance: number;
  delivered: boolean;
}

/** Delivery ratio per distance bin [m from, m to), bins with no frame left out. */
export function deliveryByDistance(
  rows: readonly DeliveryAtDistance[],
  binWidth: number,
): { from: number; to: number; ratio: number; frames: number }[] {
  const bins = new Map<number, { frames: number; delivered: number }>();
  for (const r of rows) {
    if (!Number.isFinite(r.distance)) continue;
    const k = Math.floor(r.distance / binWidth);
    const bin = bins.get(k) ?? { frames: 0, delivered: 0 };
    bin.frames++;
    if (r.delivered) bin.delivered++;
    bins.set(k, bin);
  }
  return [...bins.entries()]
    .sort(([a], [b]) => a - b)
    .map(([k, b]) => ({ from: k * binWidth, to: (k + 1) * binWidth, ratio: b.delivered / b.frames, frames: b.frames }));
}

/**
 * Delivery ratio against the distance between sender and receiver when the frame was sent, one
 * line per series (a run, or a swept value), frames pooled in bins of `binWidth` metres. Frames
 * still in flight when the run ended are not counted.
 */
export function deliveryDistanceFigure(
  series: readonly { label: string; rows: readonly DeliveryAtDistance[] }[],
  title: string,
  binWidth = 5,
): TopLevelSpec | undefined {
  const values = series.flatMap((s) =>
    deliveryByDistance(s.rows, binWidth).map((b) => ({ series: s.label, distance: (b.from + b.to) / 2, ratio: b.ratio, frames: b.frames })),
  );
  if (!values.length) return undefined;
  const colour = series.length > 1 ? { color: { field: 'series', type: 'nominal', title: null, sort: null } } : {};
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, subtitle: `frames binned every ${binWidth} m by the distance at send time`, subtitleColor: '#555' },
    width: 420,
    height: 240,
    data: { values },
    layer: [
      {
        mark: { type: 'line', strokeWidth: 1.5 },
        encoding: {
          x: { field: 'distance', type: 'quantitative', title: 'distance between the cars [m]' },
          y: { field: 'ratio', type: 'quantitative', title: 'delivery ratio', scale: { domain: [0, 1] } },
          ...colour,
        },
      },
      {
        mark: { type: 'point', filled: true, size: 40 },
        encoding: {
          x: { field: 'distance', type: 'quantitative' },
          y: { field: 'ratio', type: 'quantitative' },
          tooltip: [{ field: 'frames' }],
          ...colour,
        },
      },
    ],
  } as unknown as TopLevelSpec;
}

const OUTCOME_ORDER = DELIVERY_OUTCOMES;

/** Each bin's frames and each outcome's count, bins with no frame left out. */
function outcomeBins(b: BinnedOutcomes): { from: number; to: number; frames: number; n: Record<string, number> }[] {
  const bins = Math.max(0, ...Object.values(b.counts).map((c) => c.length));
  return Array.from({ length: bins }, (_, k) => {
    const n = Object.fromEntries(OUTCOME_ORDER.map((o) => [o, b.counts[o]?.[k] ?? 0]));
    return { from: k * b.binWidth, to: (k + 1) * b.binWidth, frames: Object.values(n).reduce((s, v) => s + v, 0), n };
  }).filter((bin) => bin.frames > 0);
}

/**
 * One run's delivery-distance.csv as stacked bars: per distance bin, the share of its frames
 * delivered and lost for each reason (the shares add up to 1). Undefined with no frame.
 */
export function deliveryOutcomesFigure(b: BinnedOutcomes, title: string): TopLevelSpec | undefined {
  const bins = outcomeBins(b);
  if (!bins.length) return undefined;
  // stacked by hand (bottom to top in OUTCOME_ORDER): vega-lite does not stack bars spanning x..x2
  const values = bins.flatMap((bin) => {
    let below = 0;
    return OUTCOME_ORDER.filter((o) => bin.n[o] > 0).map((o) => {
      const share = bin.n[o] / bin.frames;
      const bar = { from: bin.from, to: bin.to, outcome: o, low: +below.toFixed(6), high: +(below + share).toFixed(6) };
      below += share;
      return { ...bar, share: +share.toFixed(6), frames: bin.frames };
    });
  });
  const seen = OUTCOME_ORDER.filter((o) => values.some((v) => v.outcome === o));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: `(frame, receiver) outcomes in ${b.binWidth} m bins of the distance at send time`,
      subtitleColor: '#555',
    },
    width: 420,
    height: 240,
    data: { values },
    mark: { type: 'bar', stroke: 'white', strokeWidth: 0.5 },
    encoding: {
      x: { field: 'from', type: 'quantitative', title: 'distance between the cars [m]' },
      x2: { field: 'to' },
      y: { field: 'low', type: 'quantitative', title: 'share of frames', scale: { domain: [0, 1] } },
      y2: { field: 'high' },
      color: { field: 'outcome', type: 'nominal', title: null, scale: { domain: seen }, legend: { labelLimit: 0 } },
      tooltip: [{ field: 'outcome' }, { field: 'share' }, { field: 'frames' }],
    },
  } as unknown as TopLevelSpec;
}

/** Delivery ratio per distance bin, one line per series (a sweep's points), from their pooled outcome counts. */
export function deliveryByPointFigure(
  series: readonly { label: string; binned: BinnedOutcomes }[],
  title: string,
  note?: string,
): TopLevelSpec | undefined {
  const values = series.flatMap((s) =>
    outcomeBins(s.binned).map((bin) => ({
      series: s.label,
      distance: (bin.from + bin.to) / 2,
      ratio: +(bin.n.delivered / bin.frames).toFixed(6),
      frames: bin.frames,
    })),
  );
  if (!values.length) return undefined;
  const width = series[0].binned.binWidth;
  const colour =
    series.length > 1
      ? { color: { field: 'series', type: 'nominal', title: null, sort: null, legend: { labelLimit: 0, columns: 2 } } }
      : {};
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: [`each point's runs pooled, frames in ${width} m bins of the distance at send time`, ...(note ? [note] : [])],
      subtitleColor: '#555',
    },
    width: 420,
    height: 240,
    data: { values },
    layer: [
      {
        mark: { type: 'line', strokeWidth: 1.5, point: { filled: true, size: 30 } },
        encoding: {
          x: { field: 'distance', type: 'quantitative', title: 'distance between the cars [m]' },
          y: { field: 'ratio', type: 'quantitative', title: 'delivery ratio', scale: { domain: [0, 1] } },
          tooltip: [{ field: 'series' }, { field: 'ratio' }, { field: 'frames' }],
          ...colour,
        },
      },
    ],
  } as unknown as TopLevelSpec;
}
