import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import type { RunEvent } from '../../../src/run/events.js';

/**
 * A vehicle whose controller is an external device, in virtual time. The device is a separate
 * process on 127.0.0.1 that cavsim does not start and that knows only the documented protocol
 * (docs/external-devices.md): the Python example, or a Node.js one that goes wrong on purpose.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCENARIO = join(ROOT, 'scenarios/external-controller-head-on.yaml');
const PYTHON_DEVICE = join(ROOT, 'containers/examples/python-vehicle/vehicle.py');
const MISBEHAVING = join(ROOT, 'test/support/own-code/misbehaving-vehicle.mjs');
const CLI = join(ROOT, 'dist/cli/main.js');
const workDir = mkdtempSync(join(tmpdir(), 'cavsim-external-'));
const devices: ChildProcess[] = [];
afterAll(() => {
  for (const d of devices) if (d.exitCode === null) d.kill('SIGKILL');
  rmSync(workDir, { recursive: true, force: true });
});

const SIMULATION_FILES = ['vehicles.csv', 'pairs.csv', 'v2v.csv', 'events.csv', 'collisions.csv'];
const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Record<string, string>[];
const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
/** The summary without what the host measured (wall time, compute and link figures) and the run's id. */
const simulated = (s: Record<string, unknown>) => ({ ...s, run_id: undefined, wall_time_s: undefined, timing: undefined });
type ExternalFigures = {
  url: string;
  barrier: boolean;
  listen_to_connect_ms: number;
  connect_to_ready_ms: number;
  ready_to_first_step_ms: number;
  ticks_sent: number;
  stamped_answers: number;
  refused_clients: number;
};
const externalOf = (s: { timing?: Record<string, unknown> }) => (s.timing!.external as Record<string, ExternalFigures>).car0;
type ComputeFigures = { ticks: number; answer: { p50_ms: number; p99_ms: number; max_ms: number } };
const computeOf = (s: { timing?: Record<string, unknown> }) => (s.timing!.compute as Record<string, ComputeFigures>).car0;

/** A port free on 127.0.0.1 now (the kernel's choice), for a scenario that names its address. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The Python example as car0's device: connects (retrying) to `url`, warns car1 at TTC 0.7 s. */
function pythonDevice(url: string): ChildProcess {
  const args = [
    PYTHON_DEVICE,
    '--url',
    url,
    '--vehicle',
    'car0',
    '--observe',
    'car1',
    '--speed',
    '10',
    '--stop-distance',
    '0',
    '--ttc',
    '0.7',
    '--warn',
    'car1',
  ];
  const child = spawn('python3', ['-u', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  devices.push(child);
  return child;
}

/** A device that says ready after `readyAfterMs`, answers ticks until `fromTick`, then exits (its connection drops). */
function crashingDevice(url: string, fromTick: number, readyAfterMs = 0): ChildProcess {
  const child = spawn('node', [MISBEHAVING, '--from-tick', String(fromTick), '--crash', '0', '--ready-after', String(readyAfterMs)], {
    env: { ...process.env, CAVSIM_SIM_URL: url, CAVSIM_VEHICLE: 'car0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  devices.push(child);
  return child;
}

/** Runs the scenario and starts `device` at the address the run prints, as a user would. */
async function runWithDevice(runId: string, overrides: string[], device: (url: string) => unknown, connected?: (url: string) => unknown) {
  const printed: string[] = [];
  let address = '';
  const events = {
    emit(e: RunEvent) {
      if (e.type !== 'log') return;
      printed.push(e.message);
      const url = /external controller at (ws:\/\/\S+)/.exec(e.message)?.[1];
      if (url) device((address = url));
      if (/its external controller connected from/.test(e.message)) connected?.(address);
    },
  };
  const run = await runScenarioSimulated(SCENARIO, { runsDir: workDir, runId, overrides, events });
  return { ...run, printed };
}

describe('an external controller device in the simulated runtime', () => {
  it('drives car0 behind the barrier: two runs identical but for the measured answer times, on a free port it prints', async () => {
    const free = ['vehicles.car0.external.listen=127.0.0.1:0'];
    const a = await runWithDevice('ext-a', free, pythonDevice);
    const b = await runWithDevice('ext-b', free, pythonDevice);
    for (const run of [a, b]) {
      expect(run.summary.status, run.summary.reason).toBe('completed');
      expect(run.summary.collision).toBe(false);
      expect(run.printed.some((m) => /^car0: waiting up to 30 s for its external controller at ws:\/\/127\.0\.0\.1:\d+$/.test(m))).toBe(
        true,
      );
    }
    expect(externalOf(a.summary).url).not.toBe(externalOf(b.summary).url);
    for (const f of SIMULATION_FILES) expect(readFileSync(join(b.runDir, f), 'utf8'), f).toBe(readFileSync(join(a.runDir, f), 'utf8'));
    expect(simulated(summaryOf(b.runDir))).toEqual(simulated(summaryOf(a.runDir)));
    // compute.csv: the same ticks, model none applies nothing; only the measured answer time differs.
    const withoutAnswer = (dir: string) => rows(dir, 'compute.csv').map(({ answer_ms: _measured, ...rest }) => rest);
    expect(withoutAnswer(b.runDir)).toEqual(withoutAnswer(a.runDir));
    const compute = rows(a.runDir, 'compute.csv');
    expect(compute).toHaveLength(500);
    expect(compute.every((r) => r.vehicle === 'car0' && Number(r.answer_ms) > 0 && r.applied_ms === '0' && r.cpu_ms === '')).toBe(true);
    // The thesis's brake: car0's device decides at 1.30 s, car1 brakes when the message arrives.
    const events = rows(a.runDir, 'events.csv').map((e) => `${e.t_s} ${e.vehicle} ${e.event}`);
    expect(events).toEqual(['1.3 car0 brake-sent', '1.3 car0 emergency-brake', '1.32 car1 brake-received', '1.32 car1 emergency-brake']);
    const link = externalOf(a.summary);
    expect(link).toMatchObject({ barrier: true, ticks_sent: 500, stamped_answers: 500, refused_clients: 0 });
    expect(link.listen_to_connect_ms).toBeGreaterThan(0);
    expect(link.listen_to_connect_ms).toBeLessThan(30_000);
    expect(link.connect_to_ready_ms).toBeGreaterThanOrEqual(0);
    expect(link.ready_to_first_step_ms).toBeGreaterThanOrEqual(0);
    expect(readFileSync(join(a.runDir, 'logs', 'car0.log'), 'utf8')).toMatch(
      /device connected from 127\.0\.0\.1:\d+[\s\S]*stop \(end of run\) after 500 ticks and 500 stamped answers/,
    );
    console.log(
      `[external] barrier: listen->connect ${link.listen_to_connect_ms} ms (Python starting), connect->ready ${link.connect_to_ready_ms} ms, ready->first step ${link.ready_to_first_step_ms} ms, answer ${JSON.stringify(computeOf(a.summary).answer)}`,
    );
  });

  it('feeds the measured answer time to compute.model: measured', async () => {
    const port = await freePort();
    const run = await runWithDevice(
      'ext-measured',
      [`vehicles.car0.external.listen=127.0.0.1:${port}`, 'vehicles.car0.compute.model=measured', 'vehicles.car0.compute.scale=3'],
      pythonDevice,
    );
    expect(run.summary.status, run.summary.reason).toBe('completed');
    expect(externalOf(run.summary).url).toBe(`ws://127.0.0.1:${port}`);
    const compute = rows(run.runDir, 'compute.csv');
    expect(compute).toHaveLength(500);
    for (const r of compute) expect(Number(r.applied_ms)).toBeCloseTo(3 * Number(r.answer_ms), 3);
    // The warning leaves car0 at its tick's time plus the applied compute time.
    const brake = rows(run.runDir, 'v2v.csv')[0];
    const tick = compute.find((r) => r.step === '130')!;
    expect(Number(brake.sent_s)).toBeCloseTo(1.3 + Number(tick.applied_ms) / 1000, 5);
  });

  it('fails naming the car and its address when no device connects within connectTimeout', async () => {
    const port = await freePort();
    const started = Date.now();
    const run = await runScenarioSimulated(SCENARIO, {
      runsDir: workDir,
      overrides: [`vehicles.car0.external.listen=127.0.0.1:${port}`, 'vehicles.car0.external.connectTimeout=1s'],
    });
    const took = (Date.now() - started) / 1000;
    expect(run.summary.status).toBe('failed');
    expect(run.summary.exit_status).toBe(5);
    expect(run.summary.failed_component).toMatchObject({
      component: `vehicle car0 (external controller at ws://127.0.0.1:${port})`,
      how: 'did not connect within 1 s',
    });
    expect(run.summary.reason).toBe(
      `the vehicle car0 (external controller at ws://127.0.0.1:${port}) did not connect within 1 s at t=0.00 s: ${run.summary.failed_component!.last_log_lines.join(' | ')}`,
    );
    expect(run.summary.steps).toBe(0);
    expect(took).toBeGreaterThanOrEqual(1);
    expect(took).toBeLessThan(8);
  });

  it('fails naming the field when the address is taken on this host', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const run = await runScenarioSimulated(SCENARIO, {
        runsDir: workDir,
        overrides: [`vehicles.car0.external.listen=127.0.0.1:${port}`],
      });
      expect(run.summary.status).toBe('failed');
      expect(run.summary.exit_status).toBe(3);
      expect(run.summary.reason).toMatch(
        new RegExp(`^vehicles\\.car0\\.external\\.listen: cannot listen on 127\\.0\\.0\\.1:${port} \\(.*EADDRINUSE`),
      );
      expect(run.summary.hint).toMatch(/choose another port/);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('fails with the reason when the device drops out mid-run, keeps what was measured, and refused a second device', async () => {
    // The first device holds the link a second before it says ready; a second one for the same car, meanwhile, is refused and logged.
    const run = await runWithDevice(
      'ext-drop',
      ['vehicles.car0.external.listen=127.0.0.1:0'],
      (url) => crashingDevice(url, 57, 1000),
      (url) => crashingDevice(url, 57),
    );
    expect(run.summary.status).toBe('failed');
    expect(run.summary.failed_component?.component).toMatch(/^vehicle car0 \(external controller at ws:\/\/127\.0\.0\.1:\d+\)$/);
    expect(run.summary.failed_component?.how).toMatch(/^disconnected \(WebSocket close 1006\)$/);
    expect(run.summary.reason).toMatch(/disconnected \(WebSocket close 1006\) at t=0\.57 s/);
    expect(run.summary.sim_time_s).toBeCloseTo(0.57, 6);
    expect(rows(run.runDir, 'vehicles.csv').length).toBeGreaterThan(100);
    expect(rows(run.runDir, 'compute.csv')).toHaveLength(57);
    const log = readFileSync(join(run.runDir, 'logs', 'car0.log'), 'utf8');
    expect(log).toMatch(/bridge: refused 127\.0\.0\.1:\d+: this link already has its client \(127\.0\.0\.1:\d+\)/);
    expect(externalOf(run.summary).refused_clients).toBe(1);
  });

  it('runs without the barrier at real-time pace when barrier is false, and says so', async () => {
    const run = await runWithDevice(
      'ext-free',
      ['vehicles.car0.external.listen=127.0.0.1:0', 'vehicles.car0.external.barrier=false'],
      pythonDevice,
    );
    expect(run.summary.status, run.summary.reason).toBe('completed');
    expect(run.summary.warnings?.join('\n')).toMatch(
      /vehicles\.car0\.external\.barrier \(from --set\): false: car0's device runs without the barrier, at real-time pace/,
    );
    expect(run.printed.some((m) => /runs without the barrier/.test(m))).toBe(true);
    const link = externalOf(run.summary);
    expect(link.barrier).toBe(false);
    expect(link.ticks_sent).toBe(500);
    // Virtual time kept to the wall clock: 5 s simulated took at least 5 s.
    expect(run.summary.wall_time_s).toBeGreaterThanOrEqual(5);
    // Answers are logged by the tick they answer, with the steps they came late.
    const compute = rows(run.runDir, 'compute.csv');
    expect(compute.length).toBeGreaterThan(400);
    expect(compute.every((r) => Number(r.answer_ms) > 0 && Number(r.applied_ms) >= 0)).toBe(true);
    expect(rows(run.runDir, 'events.csv').some((e) => e.vehicle === 'car0' && e.event === 'emergency-brake')).toBe(true);
    console.log(
      `[external] no barrier: connect->ready ${link.connect_to_ready_ms} ms, ready->first step ${link.ready_to_first_step_ms} ms, answers ${link.stamped_answers}/${link.ticks_sent}, answer ${JSON.stringify(computeOf(run.summary).answer)}, late ${JSON.stringify((run.summary.timing!.compute as Record<string, { applied: unknown }>).car0.applied)}`,
    );
  });

  it('refuses role body in the simulated runtime, and in the emulated one a device without the addresses it needs there, exit 2, creating nothing', () => {
    const runsDir = join(workDir, 'refused');
    const sim = spawnSync(
      'node',
      [CLI, 'up', SCENARIO, '--runtime', 'sim', '--runs-dir', runsDir, '--set', 'vehicles.car0.external.role=body'],
      { encoding: 'utf8' },
    );
    expect(sim.status, sim.stderr).toBe(2);
    expect(sim.stderr).toContain(
      'vehicles.car0.external.role (from --set): role: body (a physical car mirrored in the world) needs real time: run it with --runtime docker (the emulated runtime); with --runtime sim use role: controller',
    );
    const emulated = spawnSync('node', [CLI, 'up', SCENARIO, '--runtime', 'docker', '--runs-dir', runsDir], { encoding: 'utf8' });
    expect(emulated.status, emulated.stderr).toBe(2);
    expect(emulated.stderr).toContain(
      "vehicles.car0.external.from (line 23): the emulated runtime needs the device's own address, e.g. from: 10.213.0.2: only connections from it speak for this car",
    );
    expect(readdirSync(workDir).includes('refused') ? readdirSync(runsDir) : []).toEqual([]);
  });
});
