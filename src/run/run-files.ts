import { join } from 'node:path';
import type { RecorderFiles } from '../measurement/csv-columns.js';

/**
 * What a run folder holds, by file: the one place their names are spelled (docs/run-folder.md
 * describes each). Code below run/ (measurement, channel) takes the paths it writes from here.
 */
export const RUN_FILES = {
  scenario: 'scenario.resolved.json',
  manifest: 'manifest.json',
  summary: 'summary.json',
  plan: 'plan.json',
  journal: 'journal.jsonl',
  replay: 'replay.json',
  vehicles: 'vehicles.csv',
  pairs: 'pairs.csv',
  collisions: 'collisions.csv',
  v2v: 'v2v.csv',
  /** Every V2V frame sent, Ethernet-framed GeoNetworking, in simulated time (docs/v2x-messages.md). */
  pcap: 'v2v.pcap',
  /** Per CAM sender and receiver: delivery, inter-reception time, age of information (docs/v2x-messages.md). */
  camPairs: 'cam-pairs.csv',
  /** Channel busy ratio per 100 ms window, estimated from the frames sent (docs/v2x-messages.md). */
  channelBusy: 'channel-busy.csv',
  /** Each car's channel busy ratio per 100 ms window, as its radio sensed the medium (channels with a medium state). */
  cbr: 'cbr.csv',
  /** Fleet runs (no v2v.csv): (frame, receiver) outcomes counted by 10 m of distance (docs/run-folder.md). */
  deliveryDistance: 'delivery-distance.csv',
  events: 'events.csv',
  timing: 'timing.csv',
  scans: 'scans.csv',
  compute: 'compute.csv',
  mcap: 'run.mcap',
  ns3Log: 'ns3.log',
  ns3Losses: 'ns3-losses.txt',
  /** The map's grid as JSON (core/map/grid-json.ts), for emulated vehicle containers whose apps look at the walls (a CPM). */
  mapGrid: 'map/grid.json',
  /**
   * The summary's temporary file, filled with 1 MiB while the run goes so the summary can still be
   * written on a full disk. Writing the summary truncates it, so no file is deleted per run (on an
   * ext4 without a journal, every inode deleted in the last minutes slows each later file creation).
   */
  summaryReserve: '.summary.json.tmp',
} as const;

export type RunFile = keyof typeof RUN_FILES;

/** The recorder's CSV logs in the run folder `dir`. */
export function recorderFiles(dir: string): Required<RecorderFiles> {
  return {
    vehicles: join(dir, RUN_FILES.vehicles),
    pairs: join(dir, RUN_FILES.pairs),
    collisions: join(dir, RUN_FILES.collisions),
    v2v: join(dir, RUN_FILES.v2v),
    events: join(dir, RUN_FILES.events),
    cbr: join(dir, RUN_FILES.cbr),
  };
}
