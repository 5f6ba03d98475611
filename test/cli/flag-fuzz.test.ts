import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The CLI end to end with random flags and flag values (fixed seed): every command answers with
 * exit 0 or 2, never a stack trace or an internal error, and a refusal creates nothing.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const work = mkdtempSync(join(tmpdir(), 'cavsim-flag-fuzz-'));
const state = mkdtempSync(join(tmpdir(), 'cavsim-flag-fuzz-state-'));
beforeAll(() => {
  for (const folder of ['scenarios', 'maps']) cpSync(join(ROOT, folder), join(work, folder), { recursive: true });
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(state, { recursive: true, force: true });
});
const RUNS = Number(process.env.CAVSIM_FUZZ_RUNS ?? 60);
const SEED = Number(process.env.CAVSIM_FUZZ_SEED ?? 20261123);

/** Short sim runs only: nothing here may need Docker or root. */
const COMMANDS: string[][] = [
  ['validate', 'scenarios/head-on-brake.yaml'],
  ['validate', 'scenarios/mixed-four.yaml', '--runtime', 'sim'],
  ['plan', 'scenarios/head-on-brake.yaml'],
  ['up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim', '--json', '--set', 'duration=0.3s'],
  ['sweep', 'scenarios/head-on-brake.yaml', '--runtime', 'sim', '--set', 'duration=0.3s', '--delay', '10,20ms'],
  ['summary'],
];
const FLAGS = [
  '--set',
  '--runs-dir',
  '--sweeps-dir',
  '--repeat',
  '--jobs',
  '--delay',
  '--run-id',
  '--runtime',
  '--tolerance',
  '--range',
  '--find-critical',
  '--json',
];
const VALUES = [
  '',
  '-1',
  '0',
  '1e12',
  '1.5',
  'NaN',
  'abc',
  '/etc/hostname',
  '/proc/x',
  '/sys/kernel/x',
  '/dev/null/x',
  '10..300ms',
  '300..10ms',
  '10..20ms:0ms',
  '1..1e9',
  '0..1:1e-9',
  'network.delay=',
  'map.foo=1',
  'vehicles.car0.start.x.y=1',
  'network.delay=1e999ms',
  'runs/nope',
  '.',
  'sim',
  'docker',
  'x'.repeat(300),
];

const listing = () => readdirSync(work).sort();

describe('fuzz: random flags and values get exit 0 or 2, never a stack trace', () => {
  it(`${RUNS} command lines from seed ${SEED}`, () => {
    const before = listing();
    const arb = fc.record({
      command: fc.constantFrom(...COMMANDS),
      extra: fc.array(fc.tuple(fc.constantFrom(...FLAGS), fc.constantFrom(...VALUES)), { minLength: 1, maxLength: 2 }),
    });
    const statuses = new Map<number, number>();
    fc.assert(
      fc.property(arb, ({ command, extra }) => {
        const args = [...command, ...extra.flatMap(([flag, value]) => (flag === '--json' ? [flag] : [flag, value]))];
        const r = spawnSync('node', [CLI, ...args], {
          cwd: work,
          encoding: 'utf8',
          timeout: 60_000,
          env: {
            ...process.env,
            CI: 'true',
            CAVSIM_RUNS_DIR: join(work, 'runs'),
            CAVSIM_SWEEPS_DIR: join(work, 'sweeps'),
            CAVSIM_STATE_DIR: state,
          },
        });
        const shown = `cavsim ${args.join(' ')}\nstatus ${r.status} signal ${r.signal}\n${r.stderr.slice(0, 2000)}`;
        expect([0, 2], shown).toContain(r.status);
        expect(r.stderr, shown).not.toMatch(/internal error|\n\s+at .+:\d+:\d+/);
        if (r.status === 2) expect(listing(), shown).toEqual(before);
        else
          for (const made of listing().filter((f) => !before.includes(f) && f !== 'runs' && f !== 'sweeps'))
            rmSync(join(work, made), { recursive: true, force: true });
        statuses.set(r.status!, (statuses.get(r.status!) ?? 0) + 1);
        for (const made of ['runs', 'sweeps']) rmSync(join(work, made), { recursive: true, force: true });
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    process.stdout.write(`flag fuzz: ${[...statuses].map(([s, n]) => `exit ${s}: ${n}`).join(', ')}\n`);
    expect(existsSync(join(work, 'runs'))).toBe(false);
  }, 900_000);
});
