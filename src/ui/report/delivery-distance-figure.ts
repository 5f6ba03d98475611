import type { TopLevelSpec } from 'vega-lite';

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
