import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../src/run/summary.js';
import { epochNs } from '../../../src/runtime/emulated/v2v/wire.js';
import { BridgeClient } from '../../../src/runtime/rosbridge/bridge-client.js';
import { type SimulatorStatus, TOPICS } from '../../../src/runtime/rosbridge/control-topics.js';
import { MSG_TYPES, parseStringMsg } from '../../../src/runtime/rosbridge/ros-messages.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { buildEntryPoints, prepareRunDir, repoRoot, spawnNode, spawnSimulator } from './support.js';

/** How the container programs end: SIGTERM mid-run, a run folder without a scenario, a wrong vehicle. */
describe('simulator-main and vehicle-main lifecycles', () => {
  let entry: ReturnType<typeof buildEntryPoints>;
  const dirs: string[] = [];
  beforeAll(() => {
    entry = buildEntryPoints();
  });
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('on SIGTERM mid-run stops cleanly: summary status interrupted, CSVs flushed, exit 0', async () => {
    const scenario = await loadScenario(join(repoRoot, 'scenarios/head-on-brake.yaml'), { overrides: ['duration=60s'] });
    const runDir = prepareRunDir(scenario);
    dirs.push(runDir);
    const sim = await spawnSimulator(entry.simulatorMain, runDir);
    const client = await BridgeClient.connect(sim.url, { timeoutMs: 5000 });
    const running = new Promise<void>((ok) =>
      client.subscribe(TOPICS.status, MSG_TYPES.string, (m) => {
        const s = JSON.parse(parseStringMsg(m)) as SimulatorStatus;
        if (s.phase === 'running' && s.t_s >= 0.2) ok();
      }),
    );
    const stopSeen = new Promise<unknown>((ok) =>
      client.subscribe(TOPICS.simControl, MSG_TYPES.string, (m) => {
        const control = JSON.parse(parseStringMsg(m)) as { cmd: string };
        if (control.cmd === 'stop') ok(control);
      }),
    );
    client.advertise(TOPICS.simControl, MSG_TYPES.string);
    client.publish(TOPICS.simControl, { data: JSON.stringify({ cmd: 'start', t0_epoch_ns: (epochNs() + 100_000_000n).toString() }) });
    await running;
    sim.process.kill('SIGTERM');
    expect(await stopSeen).toEqual({ cmd: 'stop' }); // vehicles are told to stop too
    expect(await sim.exit).toBe(0);
    await client.close();

    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.status).toBe('interrupted');
    expect(summary.reason).toMatch(/^SIGTERM at t=\d+\.\d\d s before the scenario's 60 s$/);
    expect(summary.steps).toBeGreaterThan(0);
    expect(summary.steps).toBeLessThan(6000);
    const rows = readFileSync(join(runDir, 'vehicles.csv'), 'utf8').trim().split('\n');
    expect(rows).toHaveLength(1 + 2 * (summary.steps + 1)); // header, then both cars at t=0 and after each step
    expect(readFileSync(join(runDir, 'timing.csv'), 'utf8').trim().split('\n')).toHaveLength(1 + summary.steps);
  });

  it('a simulator without a scenario exits non-zero and says why in summary.json and on stderr', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'cavsim-proc-empty-'));
    dirs.push(runDir);
    const sim = spawnNode(entry.simulatorMain, { CAVSIM_RUN_DIR: runDir, CAVSIM_BIND: '127.0.0.1:0' });
    expect(await sim.exit).toBe(1);
    expect(sim.stderr()).toContain('scenario.resolved.json cannot be read');
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary).toMatchObject({ runtime: 'docker', status: 'failed' });
    expect(summary.reason).toContain('scenario.resolved.json cannot be read');
  });

  it('a vehicle that is not in the scenario exits non-zero naming the vehicles there are', async () => {
    const scenario = await loadScenario(join(repoRoot, 'scenarios/head-on-brake.yaml'));
    const runDir = prepareRunDir(scenario);
    dirs.push(runDir);
    const v = spawnNode(entry.vehicleMain, {
      CAVSIM_RUN_DIR: runDir,
      CAVSIM_VEHICLE: 'car9',
      CAVSIM_SIM_URL: 'ws://127.0.0.1:1',
      CAVSIM_V2V_BIND: '127.0.0.1:0',
    });
    expect(await v.exit).toBe(1);
    expect(v.stderr()).toContain('CAVSIM_VEHICLE=car9 is not a vehicle of scenario head-on-brake; vehicles: car0, car1');
    expect(existsSync(join(runDir, 'summary.json'))).toBe(false);
  });

  it('a vehicle whose simulator never answers gives up after CAVSIM_CONNECT_TIMEOUT_MS', async () => {
    const scenario = await loadScenario(join(repoRoot, 'scenarios/head-on-brake.yaml'));
    const runDir = prepareRunDir(scenario);
    dirs.push(runDir);
    const v = spawnNode(entry.vehicleMain, {
      CAVSIM_RUN_DIR: runDir,
      CAVSIM_VEHICLE: 'car0',
      CAVSIM_SIM_URL: 'ws://127.0.0.1:1',
      CAVSIM_V2V_BIND: '127.0.0.1:0',
      CAVSIM_CONNECT_TIMEOUT_MS: '500',
    });
    expect(await v.exit).toBe(1);
    expect(v.stderr()).toContain('cannot connect to ws://127.0.0.1:1');
  });
});
