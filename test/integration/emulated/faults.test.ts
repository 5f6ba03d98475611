import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { RUN_EXIT_STATUS } from '../../../src/run/outcome.js';
import type { RunSummary } from '../../../src/run/summary.js';
import { emulatedHostState } from './host-state.js';
import { CLI, emulatedE2e, HEAD_ON } from './support/e2e.js';
import { sleep, spawnCli, startLiveRun } from './support/live-run.js';

/**
 * Faults injected into real emulated runs (Docker + ns-3): whichever component dies first ends
 * the run at once as `failed`, named in summary.json with its exit status, the CSV rows measured
 * until then stay on disk, and teardown leaves the host exactly as it was.
 */
const { runsDir, real } = await emulatedE2e('faults');
const LONG = ['duration=20s'];

const vehicleRows = (runDir: string) =>
  existsSync(join(runDir, 'vehicles.csv')) ? readFileSync(join(runDir, 'vehicles.csv'), 'utf8').trim().split('\n').length - 1 : 0;
const docker = (...args: string[]) => {
  const r = spawnSync('docker', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`docker ${args.join(' ')}: ${r.stderr}`);
};

describe.skipIf(real.skip)('faults in an emulated run (Docker + ns-3)', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    before = emulatedHostState();
  });

  const expectFailedAndClean = (summary: RunSummary, runDir: string, component: string, killedAt: number) => {
    const endedAfterMs = performance.now() - killedAt;
    console.log(
      `[faults] ${component}: ${summary.reason}; ${summary.steps} steps, ${vehicleRows(runDir)} vehicle rows kept, run over ${endedAfterMs.toFixed(0)} ms after the kill`,
    );
    expect(summary.status).toBe('failed');
    expect(summary.failed_component?.component).toBe(component);
    expect(summary.steps).toBeGreaterThan(10);
    expect(summary.sim_time_s).toBeLessThan(10); // not the scenario's 20 s: the run ended at the fault
    expect(vehicleRows(runDir)).toBeGreaterThanOrEqual(2 * summary.steps);
    expect(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')).failed_component.component).toBe(component);
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  };

  it('ns-3 killed with SIGKILL 2 s into the run: failed, named, measured rows kept, host restored', async () => {
    const run = startLiveRun(HEAD_ON, { runsDir, overrides: LONG });
    await run.running;
    await sleep(2000);
    const killedAt = performance.now();
    process.kill(run.ns3Pid(), 'SIGKILL');
    const { summary } = await run.outcome;
    expect(summary.failed_component).toMatchObject({ exit_status: null, signal: 'SIGKILL' });
    expectFailedAndClean(summary, run.runDir, 'ns-3 channel', killedAt);
  });

  it('the simulator container killed 1 s into the run: failed, figures rebuilt from the flushed CSVs', async () => {
    const run = startLiveRun(HEAD_ON, { runsDir, overrides: LONG });
    await run.running;
    await sleep(1000);
    const killedAt = performance.now();
    docker('kill', run.plan().simulator.name);
    const { summary } = await run.outcome;
    expect(summary.failed_component).toMatchObject({ exit_status: 137, signal: 'SIGKILL' });
    expectFailedAndClean(summary, run.runDir, 'simulator container', killedAt);
  });

  it('`cavsim up` with car1 killed 0.3 s into the run exits with the failed status and names car1 in --json', async () => {
    const cli = spawnCli(CLI, ['up', HEAD_ON, '--runtime', 'docker', '--json', '--runs-dir', runsDir, '--set', LONG[0]]);
    // --json prints nothing until the end: find the run's vehicle container and wait for the run to start.
    let name = '';
    for (let i = 0; i < 600 && !name; i++) {
      name = spawnSync('docker', ['ps', '--filter', 'label=cavsim.vehicle=car1', '--format', '{{.Names}}'], {
        encoding: 'utf8',
      }).stdout.trim();
      if (!name) await sleep(200);
    }
    const runDir = join(runsDir, listActiveRuns()[0].runId);
    for (let i = 0; i < 600 && vehicleRows(runDir) < 2; i++) await sleep(50);
    await sleep(300);
    const killedAt = performance.now();
    docker('kill', name);
    const status = await cli.exit;
    const summary = JSON.parse(cli.output().slice(cli.output().indexOf('{'))) as RunSummary & { run_dir: string };
    expect(status).toBe(RUN_EXIT_STATUS.failed);
    expect(summary.run_dir).toBe(runDir);
    expect(summary.failed_component).toMatchObject({ component: 'vehicle car1 container', exit_status: 137, signal: 'SIGKILL' });
    expectFailedAndClean(summary, runDir, 'vehicle car1 container', killedAt);
  });

  // A paused container and a stopped process are alive to every check that only asks "is it
  // running?": the run is judged by the progress it made, not by existence.
  it('car1 paused 1 s into the run: invalid, naming car1 and how many control ticks it answered; host restored', async () => {
    const run = startLiveRun(HEAD_ON, { runsDir, overrides: ['duration=5s'] });
    await run.running;
    await sleep(1000);
    docker('pause', run.plan().vehicles.find((v) => v.vehicle === 'car1')!.name);
    const { summary } = await run.outcome;
    console.log(`[faults] car1 paused: ${summary.status}: ${summary.reason}`);
    expect(summary.status).toBe('invalid');
    expect(summary.reason).toMatch(/car1 answered \d+ of \d+ control ticks/);
    expect(summary.reason).not.toMatch(/car0 answered/);
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });

  it('ns-3 stopped (SIGSTOP) for 2 s mid-run: invalid, naming how far the channel fell behind; host restored', async () => {
    const run = startLiveRun(HEAD_ON, { runsDir, overrides: ['duration=6s'] });
    await run.running;
    await sleep(1000);
    const pid = run.ns3Pid();
    process.kill(pid, 'SIGSTOP');
    await sleep(2000);
    process.kill(pid, 'SIGCONT');
    const { summary } = await run.outcome;
    console.log(`[faults] ns-3 stopped 2 s: ${summary.status}: ${summary.reason}`);
    expect(summary.status).toBe('invalid');
    expect(summary.reason).toMatch(/the ns-3 channel fell \d+ ms behind real time/);
    expect((summary.timing as { ns3_lag_max_ms: number }).ns3_lag_max_ms).toBeGreaterThan(1000);
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });

  it('Ctrl-C during an emulated run: exit 130, summary interrupted with what was measured, host restored', async () => {
    const runId = `ctrl-c-${process.pid}`;
    const cli = spawnCli(CLI, ['up', HEAD_ON, '--runtime', 'docker', '--runs-dir', runsDir, '--run-id', runId, '--set', LONG[0]]);
    await cli.until(/\[running\]/);
    await sleep(1500);
    cli.child.kill('SIGINT');
    expect(await cli.exit, cli.output()).toBe(RUN_EXIT_STATUS.interrupted);
    const runDir = join(runsDir, runId);
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.status).toBe('interrupted');
    expect(summary.reason).toMatch(/stop requested .*stopped by the user/);
    expect(summary.sim_time_s).toBeGreaterThan(1);
    expect(summary.wall_time_s).toBeGreaterThan(1);
    expect(vehicleRows(runDir)).toBeGreaterThan(100);
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });
});
