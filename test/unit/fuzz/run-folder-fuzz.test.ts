import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A run folder damaged at random (files emptied, cut, replaced with garbage, non-JSON, absurd
 * numbers, links to /dev/zero or to a host file, deleted) given to `mcap`, `report` and `replay`:
 * each ends in a few seconds with a clear refusal (2, 3), or does its job (0; `replay` 1 when the
 * runs differ), or says the run failed (5). Never a crash (70), an abort, or a hang.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const work = mkdtempSync(join(tmpdir(), 'cavsim-folder-fuzz-'));
const pristine = join(work, 'runs', 'pristine');
const RUNS = Number(process.env.CAVSIM_FUZZ_RUNS_FOLDER ?? 24);
const SEED = Number(process.env.CAVSIM_FUZZ_SEED ?? 20261126);
const ACCEPTED_EXITS = [0, 2, 3, 5];
/** `replay` also says "ran, and differs from the original" (REPLAY_DIFFERS_EXIT). */
const acceptedExits = (command: string) => (command === 'replay' ? [...ACCEPTED_EXITS, 1] : ACCEPTED_EXITS);

const cavsim = (args: string[]) =>
  spawnSync('node', [CLI, ...args], {
    encoding: 'utf8',
    cwd: work,
    timeout: 60_000,
    env: { ...process.env, CAVSIM_RUNS_DIR: join(work, 'replays') },
  });

beforeAll(() => {
  const r = cavsim([
    'up',
    join(ROOT, 'scenarios/head-on-brake.yaml'),
    '--runtime',
    'sim',
    '--runs-dir',
    join(work, 'runs'),
    '--run-id',
    'pristine',
    '--set',
    'duration=2s',
    '--set',
    'record.mcap=false',
  ]);
  if (r.status !== 0) throw new Error(`the pristine run failed (${r.status}): ${r.stderr}`);
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const DAMAGE = ['empty', 'cut', 'garbage', 'not-json', 'huge-numbers', 'zero-link', 'host-link', 'deleted'] as const;

function damage(file: string, how: (typeof DAMAGE)[number], at: number): void {
  switch (how) {
    case 'empty':
      return truncateSync(file, 0);
    case 'cut':
      return truncateSync(file, Math.floor(statSync(file).size * ((at % 97) / 100)));
    case 'garbage':
      return writeFileSync(file, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + at) % 256)));
    case 'not-json':
      return writeFileSync(file, '{"schema": "cavsim.summary/1", "status": \n');
    case 'huge-numbers':
      return writeFileSync(
        file,
        file.endsWith('.json')
          ? '{"t_s": 1e300, "sim_time_s": -1e308, "steps": 1e300}\n'
          : 't_s,vehicle,x_m,y_m\n1e300,car0,1e308,-1e308\nNaN,car1,Infinity,0\n',
      );
    case 'zero-link':
      rmSync(file);
      return symlinkSync('/dev/zero', file);
    case 'host-link':
      rmSync(file);
      return symlinkSync('/etc/hostname', file);
    case 'deleted':
      return rmSync(file);
  }
}

describe('fuzz: damaged run folders given to mcap, report and replay', () => {
  it(`${RUNS} damaged folders from seed ${SEED}: exit 0, 2, 3 or 5, within a minute, never a crash`, async () => {
    const files = readdirSync(pristine).filter((f) => statSync(join(pristine, f)).isFile());
    const seen: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(
        fc.record({ file: fc.nat(), how: fc.nat(), at: fc.nat(), command: fc.constantFrom('mcap', 'report', 'replay') }),
        async (c) => {
          const dir = join(work, 'runs', `damaged-${n++}`);
          cpSync(pristine, dir, { recursive: true });
          const file = files[c.file % files.length];
          const how = DAMAGE[c.how % DAMAGE.length];
          damage(join(dir, file), how, c.at);
          const r = cavsim([c.command, dir]);
          const label = `${c.command} with ${file} ${how}`;
          expect(r.error, `${label}: ${r.error?.message}`).toBeUndefined();
          expect(acceptedExits(c.command), `${label} exited ${r.status} (signal ${r.signal}):\n${r.stderr}`).toContain(r.status);
          expect(r.stderr, label).not.toMatch(/bug in cavsim|bad_alloc|Aborted|core dumped/);
          if (how === 'host-link')
            expect(r.stdout + r.stderr, `${label} echoed a file that is not the run's`).not.toContain(readHostname());
          seen[`${r.status}`] = (seen[`${r.status}`] ?? 0) + 1;
          rmSync(dir, { recursive: true, force: true });
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    process.stdout.write(`run-folder fuzz: exits ${JSON.stringify(seen)}\n`);
  }, 900_000);
});

/** Vehicle names no scenario would pass, written into a run folder's resolved scenario (and, with `everywhere`, its CSVs). */
const ODD_NAMES = ['1e999', 'NaN', '', 'car 0', '\u0000', '../../etc/x', '__proto__', 'x'.repeat(300), '-1', '0x10'];

describe('fuzz: a run folder whose vehicle has an odd name', () => {
  it.each(ODD_NAMES.flatMap((name) => [true, false].map((everywhere) => [name, everywhere] as const)))(
    'vehicle %j (in the CSVs too: %s): mcap, report and replay exit 0, 1, 2, 3 or 5, never 70',
    (name, everywhere) => {
      const dir = join(work, 'runs', `odd-${n++}`);
      cpSync(pristine, dir, { recursive: true });
      const resolved = join(dir, 'scenario.resolved.json');
      const scenario = JSON.parse(readFileSync(resolved, 'utf8'));
      scenario.vehicles[0].name = name;
      writeFileSync(resolved, JSON.stringify(scenario));
      if (everywhere)
        for (const f of readdirSync(dir).filter((f) => f.endsWith('.csv')))
          writeFileSync(join(dir, f), readFileSync(join(dir, f), 'utf8').replaceAll('car0', name.replaceAll('"', '')));
      for (const command of ['mcap', 'report', 'replay']) {
        const r = cavsim([command, dir]);
        const label = `${command} with vehicle ${JSON.stringify(name)}`;
        expect(acceptedExits(command), `${label} exited ${r.status}:\n${r.stderr}`).toContain(r.status);
        expect(r.stderr, label).not.toMatch(/bug in cavsim|bad_alloc|Aborted|core dumped/);
        if (r.status === 2) expect(r.stderr, label).toMatch(/\.(json|csv)\b/);
      }
      rmSync(dir, { recursive: true, force: true });
    },
    120_000,
  );
});
let n = 0;

function readHostname(): string {
  const r = spawnSync('cat', ['/etc/hostname'], { encoding: 'utf8' });
  return r.stdout.trim() || '\u0000never';
}
