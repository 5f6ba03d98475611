import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalSlurm, startLocalSlurm } from '../../support/local-slurm.js';
import { requireReal, rootProblem } from '../../support/real-components.js';

/**
 * Sweeps on a real Slurm: a one-node cluster on this machine (scripts/local-slurm.sh, Debian's
 * slurm-wlm), a grid of 44 runs as a job array of 6 tasks, one task failing as a broken node would,
 * the sweep resumed, and its tables compared byte for byte with the local executor's. Needs root.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const SCENARIO = join(ROOT, 'scenarios/head-on-brake.yaml');
const FAILING_NODE = join(ROOT, 'test/support/slurm/failing-task.sh');
const GRID = ['--delay', '10..220ms:10ms', '--repeat', '2'];
const workDir = mkdtempSync(join(tmpdir(), 'cavsim-slurm-'));
const real = requireReal('slurm/slurm-sweep.test.ts', rootProblem());
let slurm: LocalSlurm | undefined;
let slurmConf = '';

const cavsim = (args: string[]) =>
  spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, SLURM_CONF: slurmConf, CI: 'true' } });
const tables = (dir: string) => Object.fromEntries(['summary.csv', 'points.csv'].map((f) => [f, readFileSync(join(dir, f), 'utf8')]));

afterAll(() => {
  slurm?.release();
  rmSync(workDir, { recursive: true, force: true });
});

describe.skipIf(real.skip)('cavsim sweep --executor slurm on a one-node Slurm', () => {
  beforeAll(() => {
    real.assertPresent();
    slurm = startLocalSlurm();
    slurmConf = slurm.conf;
  });

  it('prints the job script with --dry-run and creates nothing', () => {
    const sweeps = join(workDir, 'dry');
    const r = cavsim([
      'sweep',
      SCENARIO,
      ...GRID,
      '--executor',
      'slurm',
      '--runs-per-task',
      '8',
      '--mem',
      '1G',
      '--sweeps-dir',
      sweeps,
      '--dry-run',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^#!\/bin\/bash\n#SBATCH --job-name=cavsim-\S+\n#SBATCH --array=0-5\n/);
    expect(r.stdout).toContain('#SBATCH --mem=1G');
    expect(r.stdout).toMatch(/sweep-task \S+ --batch 0 --task "\$SLURM_ARRAY_TASK_ID"/);
    expect(existsSync(sweeps) ? readdirSync(sweeps) : []).toEqual([]);
  });

  it('runs 44 runs in 6 tasks, reports the task that failed, resumes it, and writes the tables the local executor writes', () => {
    const sweeps = join(workDir, 'sweeps');
    const first = cavsim([
      'sweep',
      SCENARIO,
      ...GRID,
      '--executor',
      'slurm',
      '--runs-per-task',
      '8',
      '--cavsim-on-nodes',
      FAILING_NODE,
      '--sweeps-dir',
      sweeps,
      '--no-plots',
      '--json',
    ]);
    expect(first.status, first.stderr).toBe(5);
    const id = JSON.parse(first.stdout).sweep as string;
    expect(first.stderr).toMatch(/submitted Slurm job (\d+): 44 runs in 6 tasks/);
    expect(first.stderr).toMatch(/Slurm task \d+_2 FAILED, exit 1:0(, \w+)? with 7 of its 7 runs not done: task 2: failing on purpose/);
    expect(first.stderr).toContain(`7 of 44 runs not done; \`cavsim sweep --resume ${id}\``);

    const resumed = cavsim(['sweep', '--resume', id, '--executor', 'slurm', '--sweeps-dir', sweeps, '--no-plots', '--json']);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/submitted Slurm job \d+: 7 runs in 1 tasks/);
    expect(JSON.parse(resumed.stdout).runs).toBe(44);

    const local = cavsim([
      'sweep',
      SCENARIO,
      ...GRID,
      '--executor',
      'local',
      '--sweeps-dir',
      join(workDir, 'local'),
      '--no-plots',
      '--json',
    ]);
    expect(local.status, local.stderr).toBe(0);
    expect(tables(join(sweeps, id))).toEqual(tables(JSON.parse(local.stdout).dir));
    // Each task's output is kept beside its results.
    expect(readdirSync(join(sweeps, id, 'slurm')).filter((f) => f.endsWith('.out'))).toHaveLength(7);
  });

  it('refuses the emulated runtime on Slurm, exit 2', () => {
    const r = cavsim([
      'sweep',
      SCENARIO,
      '--delay',
      '10,20ms',
      '--executor',
      'slurm',
      '--runtime',
      'docker',
      '--sweeps-dir',
      join(workDir, 'refused'),
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--executor slurm runs the simulated runtime');
  });
});
