import { join } from 'node:path';
import {
  type BusyWindow,
  busyWindows,
  type CamFigures,
  type ChannelBusyFigures,
  camFigures,
  channelBusyFigures,
  ITS_G5_DEFAULT_RATE,
} from '../measurement/cam-metrics.js';
import { CsvLog } from '../measurement/csv-log.js';
import { isWifi } from '../scenario/channel-kinds.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import type { MeasuredFigures } from './measured-so-far.js';
import { RUN_FILES } from './run-files.js';

export interface V2xFigures {
  cam: CamFigures | null;
  busyWindows: BusyWindow[];
  channelBusy: ChannelBusyFigures;
}

/** The rate CBR is estimated at: the scenario's 802.11p rate, else ITS-G5's default 6 Mb/s. */
export const cbrRate = (scenario: Pick<ResolvedScenario, 'network'>) =>
  isWifi(scenario.network) ? scenario.network.rate : ITS_G5_DEFAULT_RATE;

const computed = new WeakMap<object, { end: number; figures: V2xFigures }>();

/**
 * CAM figures and channel busy ratio of a run whose recorder kept every frame it sent (the simulated
 * runtime); undefined otherwise, or when nothing was sent. Computed once per recorder and end.
 */
export function v2xFigures(
  r: MeasuredFigures,
  scenario: Pick<ResolvedScenario, 'network' | 'physics'>,
  end: number,
): V2xFigures | undefined {
  const frames = r.v2vFrames;
  if (!frames?.length) return undefined;
  const known = computed.get(frames);
  if (known && known.end === end) return known.figures;
  const rate = cbrRate(scenario);
  const windows = busyWindows(frames, end, rate);
  const figures = {
    cam: camFigures(frames, r.v2v, r.v2vLost, scenario.physics.timestep, end),
    busyWindows: windows,
    channelBusy: channelBusyFigures(windows, rate),
  };
  computed.set(frames, { end, figures });
  return figures;
}

export const CAM_PAIRS_COLUMNS = [
  'from',
  'to',
  'cams_sent',
  'cams_received',
  'delivery_ratio',
  'irt_mean_ms',
  'irt_p50_ms',
  'irt_p95_ms',
  'irt_max_ms',
  'aoi_mean_ms',
  'aoi_p95_ms',
  'aoi_max_ms',
] as const;
export const CHANNEL_BUSY_COLUMNS = ['t_s', 'frames', 'busy_ratio'] as const;

/**
 * cam-pairs.csv (runs with CAMs: a row per sender and receiver) and channel-busy.csv (runs that
 * sent anything: a row per 100 ms window) in the run folder `dir`.
 */
export function writeV2xFiles(dir: string, r: MeasuredFigures, scenario: Pick<ResolvedScenario, 'network' | 'physics'>, end: number): void {
  const f = v2xFigures(r, scenario, end);
  if (!f) return;
  if (f.cam) {
    const log = new CsvLog(join(dir, RUN_FILES.camPairs), CAM_PAIRS_COLUMNS);
    try {
      for (const p of f.cam.pairs) {
        log.add([
          p.from,
          p.to,
          p.sent,
          p.received,
          p.delivery_ratio ?? undefined,
          p.inter_reception?.mean_ms,
          p.inter_reception?.p50_ms,
          p.inter_reception?.p95_ms,
          p.inter_reception?.max_ms,
          p.age?.mean_ms,
          p.age?.p95_ms,
          p.age?.max_ms,
        ]);
      }
    } finally {
      log.close();
    }
  }
  const log = new CsvLog(join(dir, RUN_FILES.channelBusy), CHANNEL_BUSY_COLUMNS);
  try {
    for (const w of f.busyWindows) log.add([w.t, w.frames, w.busy]);
  } finally {
    log.close();
  }
}
