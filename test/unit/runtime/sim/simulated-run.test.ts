import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';
import { FRAME_OVERHEAD_BYTES } from '../../../../src/channel/frames.js';
import { stationIdOf } from '../../../../src/core/v2x/networking/station-id.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const HEAD_ON = join(ROOT, 'scenarios/head-on-brake.yaml');
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-sim-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

const run = (overrides: string[] = [], file = HEAD_ON) => runScenarioSimulated(file, { overrides, runsDir });

describe('simulated runtime, head-on-brake', () => {
  it('is deterministic: the same scenario and seed give byte-identical CSVs', async () => {
    const a = await run(['network.loss=0.2', 'network.delay=50ms']);
    const b = await run(['network.loss=0.2', 'network.delay=50ms']);
    for (const f of ['vehicles.csv', 'pairs.csv', 'collisions.csv', 'v2v.csv', 'events.csv']) {
      expect(readFileSync(join(a.runDir, f), 'utf8')).toBe(readFileSync(join(b.runDir, f), 'utf8'));
    }
    expect(a.runDir).not.toBe(b.runDir);
  });

  it('the minimum distance falls as the delay grows, with a collision at 300 ms', async () => {
    const results = [];
    for (const d of [10, 100, 200, 300]) results.push((await run([`network.delay=${d}ms`])).summary);
    const distances = results.map((s) => s.min_distance_m!);
    for (let i = 1; i < distances.length; i++) expect(distances[i]).toBeLessThan(distances[i - 1]);
    expect(results.map((s) => s.collision)).toEqual([false, false, false, true]);
    expect(results[3].first_collision_t_s).toBeGreaterThan(0);
    for (const s of results) {
      expect(s.status).toBe('completed');
      expect(s.min_ttc_s).toBeLessThan(0.7);
      expect(s.v2v.sent).toBe(1);
      expect(s.v2v.received).toBe(1);
    }
  });

  it('the brake message takes the configured delay and car1 brakes on arrival', async () => {
    const { summary, runDir } = await run(['network.delay=200ms']);
    const sent = summary.events.find((e) => e.event === 'brake-sent')!;
    const received = summary.events.find((e) => e.event === 'brake-received')!;
    expect(sent.vehicle).toBe('car0');
    expect(received.vehicle).toBe('car1');
    // delivered on the first physics step at or after arrival (10 ms steps)
    expect(received.t_s - sent.t_s).toBeGreaterThanOrEqual(0.2);
    expect(received.t_s - sent.t_s).toBeLessThan(0.2 + 0.01 + 1e-9);
    expect(summary.v2v.p50_ms).toBeGreaterThanOrEqual(200);
    expect(summary.v2v.p50_ms).toBeLessThan(200.1);
    const v2v = readFileSync(join(runDir, 'v2v.csv'), 'utf8').trim().split('\n');
    expect(v2v[0]).toBe(
      'id,from,to,type,sent_s,received_s,latency_ms,size_bytes,outcome,distance_m,line_of_sight,rx_power_dbm,from_station_id,to_station_id',
    );
    // the sender's and the receiver's ITS station IDs: what their standard messages and v2v.pcap carry
    expect(v2v[1]).toMatch(
      new RegExp(`^car0-1,car0,car1,emergency-brake,.*,delivered,\\d+(\\.\\d+)?,,,${stationIdOf('car0')},${stationIdOf('car1')}$`),
    );
    expect(new Set([stationIdOf('car0'), stationIdOf('car1')]).size).toBe(2);
  });

  it('logs the exact virtual receive time: at 10 ms the latency reads 10 ms plus serialisation, not one step more', async () => {
    const { summary, runDir } = await run(['network.delay=10ms']);
    const [, row] = readFileSync(join(runDir, 'v2v.csv'), 'utf8').trim().split('\n');
    const [, , , , sent, received, latencyMs, size] = row.split(',').map(Number);
    const expected = 0.01 + ((size + FRAME_OVERHEAD_BYTES) * 8) / 100e6;
    expect(received - sent).toBeCloseTo(expected, 6); // the CSV writes times to the microsecond
    expect(latencyMs).toBeCloseTo(expected * 1000, 6);
    expect(summary.v2v.p50_ms).toBeCloseTo(expected * 1000, 3);
    // handed to car1's apps at its first control tick at or after the receive time
    const received_t = summary.events.find((e) => e.event === 'brake-received')!.t_s;
    expect(received_t).toBeGreaterThanOrEqual(received);
    expect(received_t).toBeLessThan(received + 0.01);
  });

  it('runs the latency channel with jitter: latencies within [delay, delay + jitter] plus serialisation, deterministic', async () => {
    const sets = ['network.channel=latency', 'network.delay=100ms', 'network.jitter=20ms', 'network.dataRate=2Mbps'];
    const a = await run(sets);
    const b = await run(sets);
    expect(readFileSync(join(a.runDir, 'v2v.csv'), 'utf8')).toBe(readFileSync(join(b.runDir, 'v2v.csv'), 'utf8'));
    expect(a.summary.parameters.network).toMatchObject({ channel: 'latency', jitter: 0.02 });
    expect(a.summary.v2v.received).toBe(1);
    expect(a.summary.v2v.p50_ms).toBeGreaterThan(100);
    expect(a.summary.v2v.p50_ms).toBeLessThan(121);
    expect(a.summary.collision).toBe(false);
  });

  it('loses the message when the channel loses everything, and then they collide', async () => {
    const { summary } = await run(['network.loss=1']);
    expect(summary.v2v).toMatchObject({ sent: 1, received: 0, lost: 1 });
    expect(summary.collision).toBe(true);
  });

  it('writes the run folder: resolved scenario, CSVs with headers, summary', async () => {
    const { summary, runDir } = await run();
    const saved = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    expect(saved).toEqual(summary);
    expect(saved.parameters.network.delay).toBeCloseTo(0.01, 12);
    expect(JSON.parse(readFileSync(join(runDir, 'scenario.resolved.json'), 'utf8')).name).toBe('head-on-brake');
    const vehicles = readFileSync(join(runDir, 'vehicles.csv'), 'utf8').trim().split('\n');
    expect(vehicles[0]).toBe('t_s,vehicle,x_m,y_m,yaw_rad,speed_mps,steer_rad,yaw_rate_radps,cmd_speed_mps,cmd_steer_rad,braking,collided');
    expect(vehicles).toHaveLength(1 + 2 * 501); // t = 0 .. 5 s every 10 ms, two cars
    expect(vehicles[1]).toBe('0,car0,-20,-1,0,10,0,0,10,0,0,0');
  });
});

describe('simulated runtime, open-loop dynamics', () => {
  it('plays back a command schedule and reproduces the braking distance', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-ol-'));
    const file = join(dir, 'ol.yaml');
    writeFileSync(
      file,
      `name: ol\nmap: ${join(ROOT, 'maps/open.yaml')}\nduration: 3s\nvehicles:\n  - name: car0\n    start: { x: -20, y: 0, speed: 10 }\n    controller:\n      type: open-loop\n      schedule: [{ t: 0s, speed: 10, steer: 0 }, { t: 1s, speed: 0, steer: 0 }]\n`,
    );
    const { runDir } = await runScenarioSimulated(file, { runsDir });
    const rows = readFileSync(join(runDir, 'vehicles.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const at = (t: string) => rows.find((r) => r[0] === t)!;
    const xBrake = Number(at('1')[2]);
    const xEnd = Number(at('3')[2]);
    expect(Number(at('3')[5])).toBeCloseTo(0, 3);
    // v^2 / (2 a_max) = 100 / 19.02 = 5.258 m, plus the 2-step steering-free command path and the slow tail.
    expect(xEnd - xBrake).toBeGreaterThan(5.25);
    expect(xEnd - xBrake).toBeLessThan(5.45);
    rmSync(dir, { recursive: true, force: true });
  });
});
