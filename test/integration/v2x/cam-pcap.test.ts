import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { headingDegrees, toLatLon } from '../../../src/core/v2x/networking/geo-reference.js';
import { stationIdOf } from '../../../src/core/v2x/networking/station-id.js';
import { PCAP_EPOCH_UNIX_S } from '../../../src/measurement/pcap-log.js';
import { requireReal, tsharkProblem } from '../../support/real-components.js';
import { scratchDir } from '../../support/scratch-dir.js';

/**
 * scenarios/cam-highway.yaml in virtual time, its v2v.pcap decoded by Wireshark's own dissectors
 * (tshark): every frame a well-formed GeoNetworking/BTP-B/CAM, carrying the sending car's state of
 * vehicles.csv at its generation time, at the intervals of the CA basic service's rules.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const real = requireReal('v2x/cam-pcap.test.ts', tsharkProblem());
const FIELDS = [
  'frame.time_epoch',
  'frame.protocols',
  'frame.len',
  'its.protocolVersion',
  'its.messageID',
  'its.stationID',
  'cam.generationDeltaTime',
  'its.latitude',
  'its.longitude',
  'its.speedValue',
  'its.headingValue',
  'btpb.dstport',
  '_ws.expert',
  '_ws.malformed',
];
const REF = { lat: 48.7758, lon: 9.1829 };

interface Frame {
  t: number;
  layers: Record<string, string[] | undefined>;
}

const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Record<string, string>[];
const num = (f: Frame, field: string) => Number(f.layers[field]![0]);

describe.skipIf(real.skip)('CAMs in v2v.pcap, decoded by tshark', () => {
  let frames: Frame[];
  let runDir: string;
  beforeAll(async () => {
    real.assertPresent();
    const run = await runScenarioSimulated(join(ROOT, 'scenarios/cam-highway.yaml'), {
      runsDir: scratchDir('cavsim-cam-'),
      runId: 'cam',
      overrides: ['network.engine=builtin'],
      mcapByDefault: false,
    });
    expect(run.summary.status, run.summary.reason).toBe('completed');
    runDir = run.runDir;
    const json = execFileSync('tshark', ['-r', join(runDir, 'v2v.pcap'), '-T', 'json', ...FIELDS.flatMap((f) => ['-e', f])], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    frames = (JSON.parse(json) as { _source: { layers: Frame['layers'] } }[]).map((p) => ({
      layers: p._source.layers,
      t: Number(p._source.layers['frame.time_epoch']![0]) - PCAP_EPOCH_UNIX_S,
    }));
  }, 60_000);

  it('decodes every frame as a well-formed GeoNetworking SHB / BTP-B 2001 / CAM, one per message sent', () => {
    const sent = new Set(rows(runDir, 'v2v.csv').map((r) => r.id));
    expect(frames.length).toBe(sent.size);
    expect(frames.length).toBeGreaterThan(50);
    for (const f of frames) {
      expect(f.layers['_ws.malformed'], JSON.stringify(f.layers)).toBeUndefined();
      expect(f.layers['_ws.expert'], JSON.stringify(f.layers)).toBeUndefined();
      expect(f.layers['frame.protocols']![0]).toBe('eth:ethertype:gnw:btpb:its');
      expect([num(f, 'its.protocolVersion'), num(f, 'its.messageID'), num(f, 'btpb.dstport')]).toEqual([2, 2, 2001]);
      expect(num(f, 'cam.generationDeltaTime')).toBe(Math.round(f.t * 1000) % 65536);
    }
    // v2v.csv's sizes are the GeoNetworking packets' (the frame less its 14-octet Ethernet header)
    const sizes = new Set(rows(runDir, 'v2v.csv').map((r) => Number(r.size_bytes)));
    expect(sizes).toEqual(new Set(frames.map((f) => num(f, 'frame.len') - 14)));
  });

  it("carries each car's station ID, position, speed and heading of vehicles.csv at the generation time", () => {
    const byName = new Map(['car0', 'car1', 'car2'].map((n) => [stationIdOf(n), n]));
    const states = new Map(rows(runDir, 'vehicles.csv').map((r) => [`${r.vehicle}@${Number(r.t_s).toFixed(2)}`, r]));
    for (const f of frames) {
      const car = byName.get(num(f, 'its.stationID'));
      expect(car).toBeDefined();
      const s = states.get(`${car}@${f.t.toFixed(2)}`)!;
      const { lat, lon } = toLatLon(REF, Number(s.x_m), Number(s.y_m));
      expect(Math.abs(num(f, 'its.latitude') - Math.round(lat * 1e7))).toBeLessThanOrEqual(1);
      expect(Math.abs(num(f, 'its.longitude') - Math.round(lon * 1e7))).toBeLessThanOrEqual(1);
      expect(Math.abs(num(f, 'its.speedValue') - Math.round(Math.abs(Number(s.speed_mps)) * 100))).toBeLessThanOrEqual(1);
      const heading = Math.round(headingDegrees(Number(s.yaw_rad)) * 10) % 3600;
      expect(
        Math.min(Math.abs(num(f, 'its.headingValue') - heading), 3600 - Math.abs(num(f, 'its.headingValue') - heading)),
      ).toBeLessThanOrEqual(1);
    }
  });

  it('spaces CAMs 100 ms to 1 s apart, closer while a car changes speed', () => {
    const times = (car: string) => frames.filter((f) => num(f, 'its.stationID') === stationIdOf(car)).map((f) => f.t);
    const gaps = (ts: number[], from = 0, to = Infinity) =>
      ts
        .slice(1)
        .map((t, i) => [ts[i], t - ts[i]])
        .filter(([t]) => t >= from && t < to)
        .map(([, g]) => g);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const report: Record<string, string> = {};
    for (const car of ['car0', 'car1', 'car2']) {
      const g = gaps(times(car));
      expect(Math.min(...g)).toBeGreaterThanOrEqual(0.1 - 1e-6);
      expect(Math.max(...g)).toBeLessThanOrEqual(1 + 1e-6);
      report[car] = `${times(car).length} CAMs`;
    }
    const car0 = times('car0');
    const car1 = times('car1');
    // car0 crawls at 2 m/s (a CAM a second), speeds up to 8 m/s at 4 s (every check), then cruises (4 m in 0.5-0.6 s)
    expect(gaps(car0, 0, 3.9).every((g) => Math.abs(g - 1) < 1e-6)).toBe(true);
    expect(Math.max(...gaps(car0, 4, 4.5))).toBeLessThanOrEqual(0.1 + 1e-6);
    // car1 cruises at 12 m/s (4 m in 1/3 s: every 400 ms), brakes at 4 m/s^2 from 6 s (0.5 m/s in 200 ms)
    expect(gaps(car1, 0.5, 5.9).every((g) => Math.abs(g - 0.4) < 1e-6)).toBe(true);
    expect(mean(gaps(car1, 6, 8.8))).toBeLessThanOrEqual(0.2 + 1e-6);
    // car2 is parked: once a second
    expect(gaps(times('car2')).every((g) => Math.abs(g - 1) < 1e-6)).toBe(true);
    console.log(
      `[cam-pcap] ${JSON.stringify(report)}; car0 mean gap ${mean(gaps(car0, 0, 3.9)).toFixed(2)} s at 2 m/s, ${mean(gaps(car0, 4, 4.8)).toFixed(2)} s accelerating, ${mean(gaps(car0, 5, 10)).toFixed(2)} s at 8 m/s; car1 ${mean(gaps(car1, 0.5, 5.9)).toFixed(2)} s at 12 m/s, ${mean(gaps(car1, 6, 8.8)).toFixed(2)} s braking`,
    );
  });
});
