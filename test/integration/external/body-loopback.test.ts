import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BodyFigures } from '../../../src/measurement/body-reports.js';
import type { RunSummary } from '../../../src/run/summary.js';
import { epochNs } from '../../../src/runtime/emulated/v2v/wire.js';
import { RunControl } from '../../../src/runtime/rosbridge/run-control.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { buildEntryPoints, type Child, freeUdpPorts, prepareRunDir, repoRoot, spawnNode, spawnSimulator } from '../processes/support.js';

/**
 * A physical car (external role: body) in the emulated runtime's simulator, without Docker or root:
 * the simulator and a virtual car's vehicle program run as host processes on loopback (as
 * bench/testbed/loopback-control-link.ts does) and the Python example body.py plays the physical
 * car, using only the documented protocol. The orchestrator's part is done here.
 */
const BODY = join(repoRoot, 'containers/examples/python-vehicle/body.py');
const workDir = mkdtempSync(join(tmpdir(), 'cavsim-body-'));
let entry: ReturnType<typeof buildEntryPoints>;
beforeAll(() => {
  entry = buildEntryPoints();
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

type Row = Record<string, string>;
const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Row[];

/** car0 is the physical car (its start pose is the device's business); car1 a virtual car. */
function scenarioFile(name: string, car1: string, duration = '3s', gates = ''): string {
  const file = join(workDir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
map: ${join(repoRoot, 'maps/corridor.yaml')}
duration: ${duration}
network: { channel: csma, delay: 1ms, dataRate: 100Mbps }
${car1.includes('lidar') ? 'record: { scans: true }\n' : ''}vehicles:
  - name: car0
    start: { x: 10, y: -1, yaw: 3.141592653589793, speed: 0 }
    external: { role: body${gates} }
  - name: car1
${car1}
`,
  );
  return file;
}

interface BodyRun {
  runDir: string;
  summary: RunSummary;
  body: BodyFigures;
  deviceLog: string;
}

async function runWithBody(name: string, file: string, bodyArgs: string[]): Promise<BodyRun> {
  const scenario = await loadScenario(file);
  const runDir = prepareRunDir(scenario);
  const sim = await spawnSimulator(entry.simulatorMain, runDir, { CAVSIM_RUN_ID: name });
  const [bodyPort, carPort] = await freeUdpPorts(2);
  const car1 = spawnNode(entry.vehicleMain, {
    CAVSIM_RUN_DIR: runDir,
    CAVSIM_VEHICLE: 'car1',
    CAVSIM_SIM_URL: sim.url,
    CAVSIM_V2V_BIND: `127.0.0.1:${carPort}`,
    CAVSIM_V2V_PEERS: JSON.stringify({ car0: `127.0.0.1:${bodyPort}` }),
  });
  const device = spawn(
    'python3',
    [
      '-u',
      BODY,
      '--url',
      sim.url,
      '--vehicle',
      'car0',
      '--v2v-bind',
      `127.0.0.1:${bodyPort}`,
      '--v2v-peer',
      `car1=127.0.0.1:${carPort}`,
      ...bodyArgs,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let deviceLog = '';
  device.stderr!.on('data', (d) => (deviceLog += d));
  const deviceExit = new Promise<void>((ok) => device.once('exit', () => ok()));
  try {
    const control = await RunControl.connect(sim.url, { timeoutMs: 10_000 });
    await control.waitForReady();
    control.start(epochNs() + 300_000_000n);
    await control.waitForStopped();
    await control.close();
    await Promise.all([sim.exit, car1.exit, deviceExit]);
  } finally {
    for (const c of [sim, car1] as Child[]) if (c.process.exitCode === null) c.process.kill('SIGKILL');
    if (device.exitCode === null) device.kill('SIGKILL');
  }
  const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
  const body = (summary.timing?.external as Record<string, BodyFigures> | undefined)?.car0 as BodyFigures;
  return { runDir, summary, body, deviceLog: `${deviceLog}\n--- simulator\n${sim.stderr()}\n--- car1\n${car1.stderr()}` };
}

/** For the tests of mirroring: a loaded CI machine delays the odd report by tens of ms, which is the gate tests' business. */
const ROOMY = ', maxPoseLag: 200ms, maxClockOffset: 50ms';

/** Completed, or invalid for this loaded machine's lateness alone (the emulated tests allow it), never for the device. */
function expectCompletedOrLate(s: RunSummary, log: string): void {
  expect(['completed', 'invalid'], `${s.reason}\n${log.slice(-3000)}`).toContain(s.status);
  if (s.status === 'invalid') {
    expect(s.reason).not.toMatch(/car0's/);
    // car1 runs the idle controller: its commands come only from its brake app, which is no stall.
    expect(s.reason).not.toMatch(/answered \d+ of/);
  }
}

const VIRTUAL_TOWARD_BODY = `    start: { x: -10, y: -1, yaw: 0, speed: 4 }
    lidar: { rate: 20Hz, beams: 181, fov: 3.14159 }
    apps: [{ type: brake-receiver }, { type: beacon, rate: 10Hz }]`;

describe('a physical car (role: body) mirrored by the emulated simulator, its device on loopback', () => {
  it("is where it reports, the virtual car's lidar and TTC see it, its V2V warning brakes the virtual car, both directions are in v2v.csv", async () => {
    const run = await runWithBody('body-mirror', scenarioFile('body-mirror', VIRTUAL_TOWARD_BODY, '3s', ROOMY), [
      '--x',
      '10',
      '--y',
      '-1',
      '--yaw',
      String(Math.PI),
      '--speed',
      '2',
      '--observe',
      'car1',
      '--warn',
      'car1',
      '--warn-distance',
      '8',
    ]);
    const { summary, runDir, body } = run;
    expectCompletedOrLate(summary, run.deviceLog);
    expect(summary.collision).toBe(false);

    // Where the device says it is: x = 10 - 2 t (within the few ms its reports take).
    const car0 = rows(runDir, 'vehicles.csv').filter((r) => r.vehicle === 'car0');
    expect(car0.length).toBe(summary.steps + 1);
    for (const r of car0) expect(Number(r.x_m), `t=${r.t_s}`).toBeCloseTo(10 - 2 * Number(r.t_s), 1);
    expect(car0.every((r) => Number(r.y_m) === -1 && r.cmd_speed_mps === (Number(r.t_s) === 0 ? r.cmd_speed_mps : '2'))).toBe(true);

    // car1's lidar, straight ahead: the physical car's rear, not the corridor's end 30 m away.
    const scans = rows(runDir, 'scans.csv').filter((r) => r.vehicle === 'car1' && Number(r.t_s) === 1);
    const ranges = scans[0].ranges.split(';').map(Number);
    const ahead = ranges[Math.round((0 - Number(scans[0].angle_min)) / Number(scans[0].angle_increment))];
    const car1AtOne = rows(runDir, 'vehicles.csv').find((r) => r.vehicle === 'car1' && Number(r.t_s) === 1)!;
    const gap = Number(car0.find((r) => Number(r.t_s) === 1)!.x_m) - Number(car1AtOne.x_m);
    expect(ahead).toBeLessThan(gap);
    expect(ahead).toBeGreaterThan(gap - 1);

    // The pair and its TTC: closing at 6 m/s until car1 brakes.
    const pairs = rows(runDir, 'pairs.csv');
    expect(pairs.length).toBeGreaterThan(0);
    expect(pairs.every((p) => p.a === 'car0' && p.b === 'car1')).toBe(true);
    const early = pairs.find((p) => Number(p.t_s) === 1)!;
    expect(Number(early.distance_m)).toBeCloseTo(gap, 1);
    expect(Number(early.ttc_s)).toBeGreaterThan(0);
    expect(summary.min_distance_m!).toBeLessThan(8);

    // The warning: sent by the device over UDP, received by car1, which brakes; car1's beacons reach the device.
    const events = rows(runDir, 'events.csv').map((e) => `${e.vehicle} ${e.event}`);
    expect(events).toEqual(expect.arrayContaining(['car0 brake-sent', 'car1 brake-received', 'car1 emergency-brake']));
    const v2v = rows(runDir, 'v2v.csv');
    const warning = v2v.filter((m) => m.from === 'car0');
    expect(warning).toHaveLength(1);
    expect(warning[0]).toMatchObject({ to: 'car1', type: 'emergency-brake' });
    // sent on the device's clock, mapped to the run's through the measured offset: that offset is
    // known to within half a round trip, so a loaded machine can show a loopback hop slightly negative
    const offsetUncertaintyMs = (run.body.clock_rtt_max_ms ?? 0) / 2;
    expect(Number(warning[0].latency_ms)).toBeGreaterThanOrEqual(-offsetUncertaintyMs);
    expect(Number(warning[0].latency_ms)).toBeLessThan(20);
    const beacons = v2v.filter((m) => m.from === 'car1' && m.to === 'car0' && m.received_s !== '');
    expect(beacons.length).toBeGreaterThan(20);
    const car1Rows = rows(runDir, 'vehicles.csv').filter((r) => r.vehicle === 'car1');
    expect(Number(car1Rows.at(-1)!.speed_mps)).toBeLessThan(0.01);
    expect(car1Rows.at(-1)!.braking).toBe('1');

    expect(body).toMatchObject({ role: 'body', max_clock_offset_ms: 50, max_pose_lag_ms: 200, max_report_gap_limit_ms: 250 });
    expect(body.reports_per_s).toBeGreaterThan(40);
    expect(body.reports_per_s).toBeLessThan(55);
    expect(Math.abs(body.clock_offset_ms!)).toBeLessThan(5);
    expect(body.pose_lag_p50_ms!).toBeLessThan(10);
    expect(body.pose_lag_p99_ms!).toBeLessThan(200);
    expect(body.clock_samples).toBeGreaterThan(20);
    console.log(
      `[body] ${summary.status}: ${body.reports} reports (${body.reports_per_s}/s), pose lag p50/p99/max ${body.pose_lag_p50_ms}/${body.pose_lag_p99_ms}/${body.pose_lag_max_ms} ms, clock offset ${body.clock_offset_ms} ms (max |${body.clock_offset_max_abs_ms}|, rtt p50/max ${body.clock_rtt_p50_ms}/${body.clock_rtt_max_ms} ms), max gap ${body.max_report_gap_ms} ms; warning latency ${warning[0].latency_ms} ms`,
    );
  });

  it('collides with a virtual car it drives into', async () => {
    const parked = '    start: { x: 0, y: -1, yaw: 0, speed: 0 }';
    const run = await runWithBody('body-collision', scenarioFile('body-collision', parked, '2.5s', ROOMY), [
      '--x',
      '5',
      '--y',
      '-1',
      '--yaw',
      String(Math.PI),
      '--speed',
      '3',
    ]);
    expectCompletedOrLate(run.summary, run.deviceLog);
    expect(run.summary.collision).toBe(true);
    const hit = rows(run.runDir, 'collisions.csv');
    expect(hit[0]).toMatchObject({ a: 'car0', b: 'car1' });
    // Centres about a car length apart: (5 - 0.58) / 3 s, give or take the step and the report lag.
    expect(Number(hit[0].t_s)).toBeGreaterThan(1.3);
    expect(Number(hit[0].t_s)).toBeLessThan(1.6);
  });

  const away = '    start: { x: -20, y: -1, yaw: 3.141592653589793, speed: 1 }';
  const still = ['--x', '10', '--y', '-1', '--yaw', String(Math.PI), '--speed', '1'];

  it("is invalid, naming the car, when the device's clock is 200 ms off", async () => {
    const run = await runWithBody('body-offset', scenarioFile('body-offset', away, '1.5s'), [...still, '--clock-offset-ms', '200']);
    expect(run.summary.status, run.deviceLog.slice(-2000)).toBe('invalid');
    expect(run.summary.reason).toMatch(
      /car0's device clock was at least [12]\d\d(\.\d+)? ms off the simulator's \(external\.maxClockOffset 20 ms\)/,
    );
    // The offset is taken out of the lag: the reports themselves are on time (p50: a loaded CI machine delays a few).
    expect(run.body.pose_lag_p50_ms!, JSON.stringify(run.body)).toBeLessThan(20);
    expect(run.body.clock_offset_ms!).toBeCloseTo(200, -1);
    const car0 = rows(run.runDir, 'vehicles.csv').filter((r) => r.vehicle === 'car0' && Number(r.t_s) === 1);
    expect(Number(car0[0].x_m)).toBeCloseTo(9, 1);
  });

  it('is invalid, naming the car, when its pose reports arrive 200 ms after their stamp', async () => {
    const run = await runWithBody('body-lag', scenarioFile('body-lag', away, '1.5s'), [...still, '--lag-ms', '200']);
    expect(run.summary.status, run.deviceLog.slice(-2000)).toBe('invalid');
    expect(run.summary.reason).toMatch(/car0's pose reports lagged 2\d\d(\.\d+)? ms at p99 \(external\.maxPoseLag 50 ms/);
    expect(run.summary.reason).not.toMatch(/clock was/);
  });

  it('fails, naming the car, when its device stops reporting mid-run', async () => {
    const run = await runWithBody('body-stall', scenarioFile('body-stall', away, '3s', ', maxReportGap: 300ms'), [
      ...still,
      '--stop-after',
      '1',
    ]);
    expect(run.summary.status).toBe('failed');
    expect(run.summary.reason).toMatch(
      /^car0's device stopped reporting its pose: none for 3\d\d ms at t=1\.[2-4]\d s \(external\.maxReportGap 300 ms\)$/,
    );
    expect(run.body.reports).toBeGreaterThan(40);
    expect(run.summary.steps).toBeLessThan(150);
  });
});
