import type { TopLevelSpec } from 'vega-lite';
import type { ChannelCheckResult } from '../../api/check-channel.js';
import { orderReasons } from '../../measurement/delivery-by-distance.js';
import { engineLabel } from '../terminal/check/channel-check-text.js';

/** Vega-Lite's own dashes start with [1, 0], which the PDF writer refuses: every reason gets a visible dash. */
const DASHES = [
  [6, 3],
  [2, 2],
  [8, 3, 2, 3],
  [12, 4],
  [1, 3],
  [4, 2, 1, 2, 1, 2],
  [10, 2],
  [3, 5],
];

/**
 * `cavsim check channel`'s figure: the delivery ratio against distance of both engines (top), and
 * each loss reason's share (below), one colour per engine, bins with no frame left out.
 */
export function channelCheckFigure(r: ChannelCheckResult): TopLevelSpec | undefined {
  const reasons = orderReasons(r.runs.flatMap((run) => run.table.reasons));
  const points = r.runs.flatMap((run) =>
    run.table.bins.flatMap((bin) =>
      bin.frames
        ? [
            {
              engine: engineLabel(run.engine),
              distance: (bin.from + bin.to) / 2,
              what: 'delivery',
              share: bin.delivery,
              frames: bin.frames,
            },
            ...reasons.map((reason) => ({
              engine: engineLabel(run.engine),
              distance: (bin.from + bin.to) / 2,
              what: reason,
              share: bin.losses[reason] ?? 0,
              frames: bin.frames,
            })),
          ]
        : [],
    ),
  );
  if (!points.length) return undefined;
  const x = { field: 'distance', type: 'quantitative', title: 'distance between the cars [m]', scale: { domain: [0, r.maxDistance] } };
  const engines = r.runs.map((run) => engineLabel(run.engine));
  const colour = { field: 'engine', type: 'nominal', title: null, sort: engines };
  // the first engine drawn wide beneath the second: where the two agree, both stay visible
  const width = {
    field: 'engine',
    type: 'nominal',
    title: null,
    sort: engines,
    scale: { range: [4, 1.5] },
  };
  const y = (title?: string) => ({ field: 'share', type: 'quantitative', scale: { domain: [0, 1] }, ...(title ? { title } : {}) });
  const panel = (title: string, filter: string, line: Record<string, unknown>, point: Record<string, unknown>) => ({
    width: 420,
    height: 200,
    transform: [{ filter }],
    layer: [
      {
        mark: { type: 'line', opacity: 0.8 },
        encoding: { x, y: y(title), color: colour, strokeWidth: width, ...line },
      },
      {
        mark: { type: 'point', filled: true, size: 36 },
        encoding: {
          x,
          y: y(),
          color: colour,
          tooltip: [{ field: 'what' }, { field: 'frames' }],
          ...point,
        },
      },
    ],
  });
  const mad = r.deviation?.delivery;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `${r.scenario}: delivery against distance, ${r.runs.map((run) => engineLabel(run.engine)).join(' and ')}`,
      subtitle: `broadcast frames in ${r.binWidth} m bins${mad === null || mad === undefined ? '' : `; delivery MAD ${mad.toFixed(3)}`}`,
      subtitleColor: '#555',
    },
    data: { values: points },
    vconcat: [
      panel('delivery ratio', "datum.what === 'delivery'", {}, {}),
      ...(reasons.length
        ? [
            panel(
              'share of frames lost',
              "datum.what !== 'delivery'",
              { strokeDash: { field: 'what', type: 'nominal', title: 'loss reason', sort: reasons, scale: { range: DASHES } } },
              { shape: { field: 'what', type: 'nominal', title: 'loss reason', sort: reasons } },
            ),
          ]
        : []),
    ],
    resolve: { scale: { color: 'shared' } },
    config: { legend: { labelLimit: 320 } },
  } as unknown as TopLevelSpec;
}
