import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { RUN_EXIT_STATUS } from '../../../src/run/outcome.js';
import type { RunSummary } from '../../../src/run/summary.js';
import { emulatedHostState } from './host-state.js';
import { CLI, emulatedE2e, HEAD_ON } from './support/e2e.js';
import { sleep, spawnCli } from './support/live-run.js';

/**
 * Every ordinary way `cavsim up` is asked to stop ends the run through its teardown: SIGTERM (a
 * service manager, `kill`), SIGHUP (the terminal closed), a second Ctrl-C, and Ctrl-C while the
 * host network is being set up. Each exits 130 with an `interrupted` summary that names the
 * signal, and leaves the host as it was.
 */
const { runsDir, real } = await emulatedE2e('stop-signals');

const cases: {
  name: string;
  when: RegExp;
  signals: NodeJS.Signals[];
  reason: RegExp;
  measured: boolean;
  duration?: string;
  ends?: 'completed';
}[] = [
  { name: 'SIGTERM while running', when: /\[running\]/, signals: ['SIGTERM'], reason: /stopped by SIGTERM/, measured: true },
  { name: 'SIGHUP while running', when: /\[running\]/, signals: ['SIGHUP'], reason: /stopped by SIGHUP/, measured: true },
  { name: 'Ctrl-C twice while running', when: /\[running\]/, signals: ['SIGINT', 'SIGINT'], reason: /stopped by the user/, measured: true },
  {
    name: 'Ctrl-C while the host network is set up',
    when: /\[network\]/,
    signals: ['SIGINT'],
    reason: /stopped by the user before the run started/,
    measured: false,
  },
  // The run was over: its result stands, and the teardown goes on to the end.
  {
    name: 'Ctrl-C while tearing down',
    when: /\[teardown\]/,
    signals: ['SIGINT', 'SIGINT'],
    reason: /^$/,
    measured: true,
    duration: '2s',
    ends: 'completed',
  },
];

describe.skipIf(real.skip)('`cavsim up` stopped by a signal (Docker + ns-3)', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    before = emulatedHostState();
  });

  for (const c of cases) {
    it(`${c.name}: ${c.ends ?? 'exit 130, summary interrupted and why'}, host restored`, async () => {
      const runId = `signal-${c.signals.join('-').toLowerCase()}-${c.when.source.replace(/\W/g, '')}-${process.pid}`;
      const cli = spawnCli(CLI, [
        'up',
        HEAD_ON,
        '--runtime',
        'docker',
        '--runs-dir',
        runsDir,
        '--run-id',
        runId,
        '--set',
        `duration=${c.duration ?? '20s'}`,
      ]);
      await cli.until(c.when);
      if (c.measured && !c.ends) await sleep(1500);
      for (const s of c.signals) {
        cli.child.kill(s);
        await sleep(200);
      }
      const exit = await cli.exit;
      const summary = JSON.parse(readFileSync(join(runsDir, runId, 'summary.json'), 'utf8')) as RunSummary;
      // A run that ended on its own before the signals keeps its verdict; on a loaded machine that
      // can be invalid for lateness alone, as the other emulated tests allow.
      const lateOnly =
        c.ends === 'completed' &&
        summary.status === 'invalid' &&
        /late/.test(summary.reason ?? '') &&
        !/interrupt|SIGINT/.test(summary.reason ?? '');
      const ends = lateOnly ? 'invalid' : (c.ends ?? 'interrupted');
      expect(exit, cli.output()).toBe(RUN_EXIT_STATUS[ends]);
      // A second Ctrl-C while running is answered. At teardown (0.2 s for two cars) the signals may come
      // during it, after it while cavsim exits (answered), or after the exit (nothing to answer): never fatal,
      // which the exit status above shows.
      if (c.signals.length > 1 && !c.ends) expect(cli.output()).toMatch(/SIGINT again: still stopping and undoing/);
      expect(summary.status).toBe(ends);
      if (!lateOnly) expect(summary.reason ?? '').toMatch(c.reason);
      if (c.measured) expect(summary.sim_time_s).toBeGreaterThan(1);
      expect(emulatedHostState(), cli.output()).toEqual(before);
      expect(listActiveRuns()).toEqual([]);
    });
  }
});
