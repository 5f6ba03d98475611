import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { RUN_EXIT_STATUS } from '../../../src/run/outcome.js';
import type { RunSummary } from '../../../src/run/summary.js';
import { emulatedHostState } from './host-state.js';
import { CLI, emulatedE2e, HEAD_ON } from './support/e2e.js';
import { sleep, spawnCli } from './support/live-run.js';

/**
 * The runs folder fills up during a run (a small tmpfs, filled by another program): the run ends
 * within seconds as `failed`, saying the runs folder is full, every CSV ends on a whole row, and
 * the host is restored: in real time (Docker + ns-3) and in virtual time.
 */
const { real } = await emulatedE2e('full-disk');
const mountPoint = mkdtempSync(join(tmpdir(), 'cavsim-full-runs-'));
const SIZE = 8 * 1024 * 1024;

/** Writes zeros into `file` until the filesystem holds only `leaveBytes` free. */
function fill(file: string, leaveBytes = 0): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) {
      const free = statfsSync(mountPoint).bavail * statfsSync(mountPoint).bsize;
      if (free <= leaveBytes) break;
      writeSync(fd, chunk, 0, Math.min(chunk.length, free - leaveBytes));
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}

function expectWholeRows(runDir: string): void {
  for (const name of readdirSync(runDir).filter((n) => n.endsWith('.csv'))) {
    const text = readFileSync(join(runDir, name), 'utf8');
    expect(text.endsWith('\n'), `${name} ends on a whole row`).toBe(true);
    const widths = new Set(
      text
        .trim()
        .split('\n')
        .slice(1)
        .filter((l) => !l.includes('"'))
        .map((l) => l.split(',').length),
    );
    expect(widths.size, `${name}: every row has as many cells`).toBeLessThanOrEqual(1);
  }
}

describe.skipIf(real.skip)('the runs folder fills up during a run', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE}`, 'tmpfs', mountPoint], { encoding: 'utf8' });
    if (mounted.status !== 0) throw new Error(`mount tmpfs: ${mounted.stderr}`);
    before = emulatedHostState();
  });
  afterAll(() => {
    spawnSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('emulated: failed within seconds, "runs folder is full", whole rows, exit 5, host restored', async () => {
    const runsDir = join(mountPoint, 'emulated');
    const cli = spawnCli(CLI, [
      'up',
      HEAD_ON,
      '--runtime',
      'docker',
      '--runs-dir',
      runsDir,
      '--run-id',
      'full-emulated',
      '--set',
      'duration=20s',
    ]);
    await cli.until(/\[running\]/);
    await sleep(1000);
    fill(join(mountPoint, 'filler-emulated'));
    const filledAt = Date.now();
    const exit = await cli.exit;
    const tookMs = Date.now() - filledAt;
    console.log(`[full-disk] emulated: exit ${exit} ${tookMs} ms after the disk filled`);
    expect(exit, cli.output()).toBe(RUN_EXIT_STATUS.failed);
    expect(tookMs).toBeLessThan(15_000);
    const runDir = join(runsDir, 'full-emulated');
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.status).toBe('failed');
    expect(summary.reason).toMatch(/the runs folder is full \(ENOSPC\)/);
    expect(summary.sim_time_s).toBeGreaterThan(0.5);
    expectWholeRows(runDir);
    expect(emulatedHostState(), cli.output()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
    rmSync(join(mountPoint, 'filler-emulated'));
  });

  it('simulated: failed, "runs folder is full", whole rows, exit 5', async () => {
    const runsDir = join(mountPoint, 'sim');
    // Room for the run's reserve and some rows, not for a minute of the head-on run.
    fill(join(mountPoint, 'filler-sim'), 1536 * 1024);
    const cli = spawnCli(CLI, ['up', HEAD_ON, '--runtime', 'sim', '--runs-dir', runsDir, '--run-id', 'full-sim', '--set', 'duration=600s']);
    const exit = await cli.exit;
    expect(exit, cli.output()).toBe(RUN_EXIT_STATUS.failed);
    const runDir = join(runsDir, 'full-sim');
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.status).toBe('failed');
    expect(summary.reason).toMatch(/the runs folder is full \(ENOSPC\)/);
    expect(summary.sim_time_s).toBeGreaterThan(1);
    expectWholeRows(runDir);
  });
});
