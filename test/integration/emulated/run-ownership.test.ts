import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT_STATUS } from '../../../src/errors.js';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { RUN_EXIT_STATUS } from '../../../src/run/outcome.js';
import type { RunSummary } from '../../../src/run/summary.js';
import { emulatedHostState } from './host-state.js';
import { CLI, emulatedE2e, HEAD_ON } from './support/e2e.js';
import { sleep, spawnCli, startLiveRun } from './support/live-run.js';

/**
 * Who may end a run: `teardown --all` leaves a live run (its cavsim process alive) alone; a kept
 * run (`up --keep`) stays up and reachable after the CLI exits, until `teardown --run` ends it; an
 * interface of the user's that holds a planned name is never touched.
 */
const { runsDir, real } = await emulatedE2e('run-ownership');

const cavsim = (...args: string[]) => spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: process.env });
const docker = (...args: string[]) => spawnSync('docker', args, { encoding: 'utf8' });

describe.skipIf(real.skip)('run ownership: live, kept and foreign resources (Docker + ns-3)', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    before = emulatedHostState();
  });

  it('`teardown --all` during a live run leaves it alone, and the run completes normally', async () => {
    const run = startLiveRun(HEAD_ON, { runsDir, overrides: ['duration=4s'] });
    await run.running;
    await sleep(500);
    const teardown = cavsim('teardown', '--all');
    expect(teardown.status, teardown.stderr).toBe(0);
    expect(teardown.stdout).toMatch(new RegExp(`${run.runId}: live \\(cavsim process ${process.pid} is running it\\); left alone`));
    const status = cavsim('status');
    expect(status.stdout).toMatch(new RegExp(`${run.runId}: \\d+ resource\\(s\\), live, cavsim process ${process.pid}`));
    const { summary } = await run.outcome;
    expect(['completed', 'invalid']).toContain(summary.status);
    expect(summary.sim_time_s).toBeCloseTo(4, 1);
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });

  it('`teardown --force` of a live run ends it: teardown exits 0, the run says who ended it, host restored', async () => {
    const runId = `forced-${process.pid}`;
    const cli = spawnCli(CLI, ['up', HEAD_ON, '--runtime', 'docker', '--runs-dir', runsDir, '--run-id', runId, '--set', 'duration=20s']);
    await cli.until(/\[running\]/);
    await sleep(1000);
    const teardown = cavsim('teardown', '--run', runId, '--force');
    expect(teardown.status, teardown.stdout + teardown.stderr).toBe(0);
    expect(await cli.exit, cli.output()).toBe(RUN_EXIT_STATUS.interrupted);
    const summary = JSON.parse(readFileSync(join(runsDir, runId, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.status).toBe('interrupted');
    expect(summary.reason).toMatch(/ended by `cavsim teardown --force` \(pid \d+\)/);
    expect(summary.sim_time_s).toBeGreaterThan(0.5);
    expect(emulatedHostState(), cli.output()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });

  it('`up --keep` exits after the scenario with everything up; vehicles reach each other over ns-3; `teardown --run` ends it', async () => {
    const cli = spawnCli(CLI, ['up', HEAD_ON, '--runtime', 'docker', '--keep', '--runs-dir', runsDir, '--set', 'duration=2s']);
    const status = await cli.exit;
    const runId = /run (\S+) is kept/.exec(cli.output())?.[1];
    try {
      // completed, or invalid when this machine was too busy to keep real time: kept either way
      expect([RUN_EXIT_STATUS.completed, RUN_EXIT_STATUS.invalid], cli.output()).toContain(status);
      expect(runId, cli.output()).toBeDefined();
      expect(cli.output()).toMatch(new RegExp(`end it with: cavsim teardown --run ${runId}`));
      const [, container, peer] = /docker exec (\S+) ping -c 5 (\S+)/.exec(cli.output())!;

      // The CLI is gone; containers, links and ns-3 are not: ping crosses ns-3's delay each way, the
      // 10 ms setting less the stack share the run measured (the vehicles' path, slower than ICMP's)
      const summary = JSON.parse(readFileSync(join(runsDir, runId!, 'summary.json'), 'utf8')) as RunSummary;
      const appliedMs = (summary.timing as { stack_calibration?: { applied_delay_ms: number } }).stack_calibration?.applied_delay_ms;
      expect(appliedMs).toBeGreaterThan(5);
      expect(appliedMs).toBeLessThanOrEqual(10);
      const ping = docker('exec', container, 'ping', '-c', '3', '-i', '0.2', peer);
      expect(ping.status, ping.stdout + ping.stderr).toBe(0);
      const rtts = [...ping.stdout.matchAll(/time=([\d.]+) ms/g)].map((m) => Number(m[1]));
      console.log(`[keep] ping ${container} -> ${peer}: ${rtts.join(', ')} ms (ns-3 applies ${appliedMs} ms each way)`);
      expect(rtts).toHaveLength(3);
      for (const rtt of rtts) expect(rtt).toBeGreaterThanOrEqual(2 * appliedMs!);
      expect(cavsim('status').stdout).toMatch(new RegExp(`${runId}: \\d+ resource\\(s\\), kept`));
    } finally {
      // whatever failed above, the kept run must not outlive this test
      const teardown = runId ? cavsim('teardown', '--run', runId) : cavsim('teardown', '--all');
      expect(teardown.status, teardown.stderr).toBe(0);
    }
    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });

  it('an interface of the user holding the planned control bridge name: `up` fails clearly, nothing of the user is touched, nothing is left indexed', () => {
    const plan = JSON.parse(cavsim('plan', HEAD_ON).stdout) as { runId: string; hostNet: { controlNet: { bridge: string } } };
    // `plan` picks a fresh run id each time; the user's link takes the name of the run id we pass to `up`.
    const runId = plan.runId;
    const name = plan.hostNet.controlNet.bridge;
    expect(spawnSync('ip', ['link', 'add', name, 'type', 'bridge']).status).toBe(0);
    try {
      const up = spawnSync('node', [CLI, 'up', HEAD_ON, '--runtime', 'docker', '--runs-dir', runsDir, '--run-id', runId], {
        encoding: 'utf8',
        env: { ...process.env, CI: 'true' },
      });
      expect(up.status, up.stdout + up.stderr).toBe(EXIT_STATUS.ENVIRONMENT);
      expect(up.stdout + up.stderr).toMatch(new RegExp(`interface "${name}" already exists; cavsim will not touch it`));
      expect(up.stderr).toMatch(/hint: remove or rename it yourself, or choose another run id/);
      expect(spawnSync('ip', ['link', 'show', 'dev', name]).status).toBe(0); // the user's link is still there
      expect(listActiveRuns()).toEqual([]);
      const teardown = cavsim('teardown', '--all');
      expect(teardown.status, teardown.stderr).toBe(0);
      expect(cavsim('doctor').stdout).toMatch(/Leftovers from earlier runs: no run holds host resources/);
    } finally {
      spawnSync('ip', ['link', 'delete', name]);
    }
    expect(emulatedHostState()).toEqual(before);
  });
});
