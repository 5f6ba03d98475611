import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { onAirSeconds } from '../../../src/measurement/cam-metrics.js';
import type { RunSummary } from '../../../src/run/summary.js';
import { CAM_PAIRS_COLUMNS, CHANNEL_BUSY_COLUMNS } from '../../../src/run/v2x-files.js';
import { scratchDir } from '../../support/scratch-dir.js';

/**
 * CAM metrics and the CAM platoon in virtual time on the lossless builtin channel:
 * scenarios/cam-highway.yaml's per-pair delivery, inter-reception time and age of information,
 * its channel busy ratio, and scenarios/platoon-cacc-cam.yaml against the beacon platoon.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Record<string, string>[];
const run = (scenario: string, overrides: string[] = []) =>
  runScenarioSimulated(join(ROOT, 'scenarios', scenario), {
    runsDir: scratchDir('cavsim-cam-metrics-'),
    overrides: ['network.engine=builtin', ...overrides],
    mcapByDefault: false,
  });

describe('CAM metrics on cam-highway.yaml', () => {
  let summary: RunSummary;
  let runDir: string;
  beforeAll(async () => {
    ({ summary, runDir } = await run('cam-highway.yaml'));
    expect(summary.status, summary.reason).toBe('completed');
  }, 60_000);

  it('delivers every CAM on the lossless channel, to both other cars, 100 ms to 1 s apart', () => {
    const cam = summary.v2v.cam!;
    expect(cam.pairs.map((p) => `${p.from}>${p.to}`)).toEqual([
      'car0>car1',
      'car0>car2',
      'car1>car0',
      'car1>car2',
      'car2>car0',
      'car2>car1',
    ]);
    for (const p of cam.pairs) {
      expect(p.sent).toBeGreaterThan(5);
      expect(p.received).toBe(p.sent);
      expect(p.delivery_ratio).toBe(1);
      // arrivals keep the generation intervals: [T_GenCamMin, T_GenCamMax], to float noise
      expect(p.inter_reception!.p50_ms).toBeGreaterThanOrEqual(100 - 0.01);
      expect(p.inter_reception!.max_ms).toBeLessThanOrEqual(1000 + 0.01);
      expect(p.inter_reception!.mean_ms).toBeGreaterThanOrEqual(100 - 0.01);
      // the age never exceeds the longest interval plus the 5 ms delay and a 10 ms step, and is at least the delay on average
      expect(p.age!.max_ms).toBeLessThanOrEqual(1000 + 5.2 + 10);
      expect(p.age!.mean_ms).toBeGreaterThan(5);
      expect(p.age!.p95_ms).toBeLessThanOrEqual(p.age!.max_ms);
    }
    expect(cam.all).toMatchObject({ delivery_ratio: 1 });
    expect(cam.all.sent).toBe(summary.v2v.sent_pairs! - summary.v2v.in_flight_at_end!);
  });

  it('CAM rates follow the dynamics: the parked car once a second, the cruising car faster than the crawling one', () => {
    const rate = new Map(summary.v2v.cam!.senders.map((s) => [s.vehicle, s]));
    expect(rate.get('car2')!.rate_hz).toBeCloseTo(1, 1);
    expect(rate.get('car2')!.interval!.p50_ms).toBeCloseTo(1000, 0);
    expect(rate.get('car1')!.rate_hz).toBeGreaterThan(rate.get('car0')!.rate_hz);
    expect(rate.get('car1')!.interval!.p50_ms).toBeLessThanOrEqual(400.01); // 12 m/s: 4 m in a third of a second, at the next 100 ms check
    expect(summary.v2v.cam!.senders.reduce((n, s) => n + s.sent, 0)).toBe(summary.v2v.sent);
  });

  it('the channel busy ratio is the CAMs on the air over 100 ms windows, in summary.json and channel-busy.csv', () => {
    const busy = summary.v2v.channel_busy!;
    expect(busy).toMatchObject({ method: 'on-air-estimate', window_s: 0.1, rate_bps: 6e6 });
    const windows = rows(runDir, 'channel-busy.csv');
    expect(Object.keys(windows[0])).toEqual([...CHANNEL_BUSY_COLUMNS]);
    expect(windows).toHaveLength(100);
    // three cars, at most one CAM each per 100 ms: a window holds 0 to 3 frames of 208-216 us
    expect(windows.reduce((n, w) => n + Number(w.frames), 0)).toBe(summary.v2v.sent);
    // the busy time of all windows is the CAMs' time on the air: 85- or 87-octet GN packets, 208 or 216 us each
    // (CAMs the cars send at the same control tick go on the air one after the other)
    const busyTime = windows.reduce((s, w) => s + Number(w.busy_ratio) * 0.1, 0);
    expect(onAirSeconds(85)).toBeCloseTo(208e-6, 12);
    expect(busyTime).toBeGreaterThanOrEqual(summary.v2v.sent * onAirSeconds(85) - 1e-6);
    expect(busyTime).toBeLessThanOrEqual(summary.v2v.sent * onAirSeconds(87) + 1e-6);
    for (const w of windows) expect(Number(w.busy_ratio)).toBeLessThanOrEqual(((Number(w.frames) + 2) * onAirSeconds(87)) / 0.1 + 1e-6);
    expect(busy.max).toBeGreaterThan(0.002);
    expect(busy.max).toBeLessThan(0.01);
    expect(busy.mean).toBeGreaterThan(0);
  });

  it('cam-pairs.csv has a row per pair with the summary figures', () => {
    const csv = rows(runDir, 'cam-pairs.csv');
    expect(Object.keys(csv[0])).toEqual([...CAM_PAIRS_COLUMNS]);
    expect(csv.map((r) => [r.from, r.to, Number(r.cams_sent), Number(r.delivery_ratio), Number(r.aoi_max_ms)])).toEqual(
      summary.v2v.cam!.pairs.map((p) => [p.from, p.to, p.sent, 1, p.age!.max_ms]),
    );
  });
});

describe('the platoon on CAMs (platoon-cacc-cam.yaml) against the 10 Hz beacon (platoon-cacc.yaml)', () => {
  it('completes without collision, CACC throughout on fresh CAMs, string stability figures in both', async () => {
    const [cam, beacon] = await Promise.all([run('platoon-cacc-cam.yaml'), run('platoon-cacc.yaml')]);
    for (const { summary } of [cam, beacon]) {
      expect(summary.status, summary.reason).toBe('completed');
      expect(summary.collision).toBe(false);
      expect(summary.platoon!.followers).toHaveLength(5);
      expect(summary.platoon!.string_stability!.ratios).toHaveLength(4);
    }
    const s = cam.summary;
    expect(s.parameters.vehicles[1].apps.find((a) => a.type === 'cacc')).toMatchObject({ maxAge: 1.2 });
    // every follower enters CACC once and never falls back to ACC: no CAM is older than 1.2 s
    const modes = s.events.filter((e) => e.event === 'cacc-mode');
    expect(modes).toHaveLength(5);
    expect(modes.every((e) => e.detail?.mode === 'cacc')).toBe(true);
    expect(s.v2v.cam!.all.delivery_ratio).toBe(1);
    expect(s.v2v.cam!.all.age!.max_ms).toBeLessThan(1200);
    // far fewer frames than 10 Hz beacons, and fewer bytes: a lower channel busy ratio
    expect(s.v2v.sent).toBeLessThan(beacon.summary.v2v.sent / 2);
    expect(s.v2v.channel_busy!.mean).toBeLessThan(beacon.summary.v2v.channel_busy!.mean / 4);
    // the followers keep their gaps within about a metre of the policy on either
    for (const f of [...s.platoon!.followers, ...beacon.summary.platoon!.followers]) expect(f.max_gap_error_m).toBeLessThan(1.5);
    const worst = (x: RunSummary) => Math.max(...x.platoon!.string_stability!.ratios.map((r) => r.ratio!));
    console.log(`string stability (max gap-error ratio down the string): CAMs ${worst(s)}, beacons ${worst(beacon.summary)}`);
    expect(worst(beacon.summary)).toBeLessThanOrEqual(1);
    expect(worst(s)).toBeLessThan(1.1);
  }, 120_000);
});
