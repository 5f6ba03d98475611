import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_DIFFERS_EXIT } from '../../../src/cli/replay-command.js';
import { RUN_EXIT_STATUS } from '../../../src/run/outcome.js';
import { listRunIds } from '../../../src/run/run-folder.js';
import { type LocalSlurm, startLocalSlurm } from '../../support/local-slurm.js';
import { dockerProblem, ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';

/** A run's verdict line (`run ID (docker) invalid: ...`), or the status and reason of a `--json` replay. */
function verdictOf(stdout: string): string {
  const line = stdout.split('\n').find((l) => /^run \S+ \(\w+\) /.test(l));
  if (line) return line;
  try {
    const json = JSON.parse(stdout) as { status?: string; reason?: string; replay?: { reason?: string }; summary_differences?: unknown };
    return JSON.stringify({
      status: json.status,
      reason: json.reason ?? json.replay?.reason,
      summary_differences: json.summary_differences,
    });
  } catch {
    return stdout.slice(-1500);
  }
}

/**
 * Every command in the README's `sh` blocks runs as printed, from the repository root, and exits 0.
 * Only three things are adapted: `sudo` is dropped when already root (as .ci/run does),
 * `runs/<run-id>` becomes the run the README's own `up` made, and runs and sweeps go to a scratch
 * folder through CAVSIM_RUNS_DIR / CAVSIM_SWEEPS_DIR. setup.sh and test.sh are what CI itself runs,
 * so they are not run again from here. The Slurm example runs on the local one-node Slurm.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cavsim-readme-'));
const real = requireReal('readme/readme-commands.test.ts', rootProblem() ?? ns3Problem() ?? (await dockerProblem()));
let slurmConf = '';
let slurm: LocalSlurm | undefined;

/** The README's shell commands, one per line, comments and continuation comments dropped. */
export function readmeCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  return blocks
    .flatMap((b) => b.split('\n'))
    .map((line) =>
      line
        .replace(/\s+#.*$/, '')
        .replace(/^#.*$/, '')
        .trim(),
    )
    .filter(Boolean);
}

/** The run was `invalid` for lateness alone (the machine's, not the experiment's). */
function lateOnly(runDir: string | undefined): boolean {
  if (runDir === undefined) return false;
  const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as { status: string; reason?: string };
  return summary.status === 'invalid' && /late/.test(summary.reason ?? '');
}

const commands = readmeCommands(readFileSync(join(ROOT, 'README.md'), 'utf8'));
const RUN_BY_CI = /scripts\/(setup|test)\.sh$/;

function sh(command: string) {
  return spawnSync('bash', ['-c', command], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: {
      ...process.env,
      CI: 'true',
      CAVSIM_RUNS_DIR: join(work, 'runs'),
      CAVSIM_SWEEPS_DIR: join(work, 'sweeps'),
      SLURM_CONF: slurmConf,
    },
  });
}

afterAll(() => {
  slurm?.release();
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(real.skip)("the README's commands, as printed", () => {
  beforeAll(() => {
    real.assertPresent();
    slurm = startLocalSlurm();
    slurmConf = slurm.conf;
  }, 300_000);

  it('finds the commands (the test would pass vacuously otherwise)', () => {
    expect(commands.filter((c) => c.startsWith('node dist/cli/main.js')).length).toBeGreaterThanOrEqual(15);
    expect(commands).toContain('bash scripts/setup-light.sh');
  });

  it('runs every one of them with exit status 0', () => {
    let runDir: string | undefined;
    const ran: string[] = [];
    for (const printed of commands) {
      if (RUN_BY_CI.test(printed)) continue;
      let command = process.getuid?.() === 0 ? printed.replace(/^sudo /, '') : printed;
      if (command.includes('runs/<run-id>')) {
        expect(runDir, `${printed}: needs a run made by an earlier README command`).toBeDefined();
        command = command.replaceAll('runs/<run-id>', runDir!);
      }
      const r = sh(command);
      // A real-time run (an emulated `up`, or its replay) on a loaded CI machine can end `invalid`
      // (exit 6) for lateness alone, as the emulated tests allow; any other end fails here.
      if (r.status === RUN_EXIT_STATUS.invalid && /late/.test(verdictOf(r.stdout))) {
        console.log(`[readme] ${printed}: invalid for lateness on this machine: ${verdictOf(r.stdout)}`);
      } else if (r.status === REPLAY_DIFFERS_EXIT && / replay /.test(command) && lateOnly(runDir)) {
        // the replay of a run that was late here can be on time: it says so, and differs in status only
        console.log(`[readme] ${printed}: the original was invalid for lateness, the replay differs: ${verdictOf(r.stdout)}`);
      } else {
        expect(r.status, `${printed}\n${r.stderr.slice(-2000)}\n${verdictOf(r.stdout)}`).toBe(0);
      }
      // The README's own run, for the commands that name runs/<run-id>.
      if (/ up /.test(command)) runDir = join(work, 'runs', listRunIds(join(work, 'runs')).at(-1)!);
      ran.push(printed);
    }
    expect(ran.length).toBeGreaterThanOrEqual(17);
  }, 1_500_000);
});
