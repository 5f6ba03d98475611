import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Bad input exits 2 with a message naming the flag (or variable, or file) and the fix, and creates
 * nothing; never exit 70, a stack trace or a hang. Each case is a reproduction from the issue.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const HEAD_ON = join(ROOT, 'scenarios/head-on-brake.yaml');
const work = mkdtempSync(join(tmpdir(), 'cavsim-bad-input-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const runsDir = join(work, 'runs');
const sweepsDir = join(work, 'sweeps');
const aFile = join(work, 'hostname');
writeFileSync(aFile, 'box\n');

/** Runs cavsim in `work` (so a stray ./runs would show); a hang fails the test instead of the suite. */
function cavsim(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync('node', [CLI, ...args], {
    cwd: work,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, CAVSIM_RUNS_DIR: runsDir, CAVSIM_SWEEPS_DIR: sweepsDir, CI: 'true', ...env },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Exit 2, the message, no internal error, and nothing new in the work folder. */
function expectRefused(r: ReturnType<typeof cavsim>, message: RegExp | string, before: string[]) {
  expect(r.signal, 'cavsim hung').toBeNull();
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(readdirSync(work).sort()).toEqual(before);
}

const contents = () => readdirSync(work).sort();

/** A finished run the cases below read: history/good. */
const history = join(work, 'history');
beforeAll(() => {
  const up = cavsim(['up', HEAD_ON, '--runtime', 'sim', '--run-id', 'good', '--json'], { CAVSIM_RUNS_DIR: history });
  expect(up.status, up.stderr).toBe(0);
});

describe('output folders that cannot be written', () => {
  it.each([
    [['--runs-dir', aFile], `error: --runs-dir ${aFile}: ${aFile} is a file, not a folder\nhint: choose a folder you can write`],
    [['--runs-dir', join(aFile, 'deeper')], `${aFile} is a file, not a folder, so ${join(aFile, 'deeper')} cannot be made`],
    [['--runs-dir', '/proc/cavsim-runs'], '--runs-dir /proc/cavsim-runs: /proc/cavsim-runs is under /proc, a kernel file system'],
    [['--runs-dir', '/sys/cavsim-runs'], '--runs-dir /sys/cavsim-runs: /sys/cavsim-runs is under /sys'],
    [['--runs-dir', ''], '--runs-dir is empty'],
  ])('up %j exits 2 before anything is made', (flags, message) => {
    const before = contents();
    expectRefused(cavsim(['up', HEAD_ON, '--runtime', 'sim', ...flags]), message, before);
  });

  it('names CAVSIM_RUNS_DIR and CAVSIM_SWEEPS_DIR when they set the folder', () => {
    const before = contents();
    expectRefused(
      cavsim(['up', HEAD_ON, '--runtime', 'sim'], { CAVSIM_RUNS_DIR: '/proc/x' }),
      'error: CAVSIM_RUNS_DIR=/proc/x: /proc/x is under /proc',
      before,
    );
    expectRefused(
      cavsim(['sweep', HEAD_ON, '--runtime', 'sim', '--delay', '10,20ms'], { CAVSIM_SWEEPS_DIR: aFile }),
      `error: CAVSIM_SWEEPS_DIR=${aFile}: ${aFile} is a file, not a folder`,
      before,
    );
  });

  it('sweep --sweeps-dir that is a file or under /sys exits 2', () => {
    const before = contents();
    expectRefused(
      cavsim(['sweep', HEAD_ON, '--runtime', 'sim', '--delay', '10,20ms', '--sweeps-dir', aFile]),
      `--sweeps-dir ${aFile}: ${aFile} is a file, not a folder`,
      before,
    );
    expectRefused(
      cavsim(['sweep', HEAD_ON, '--runtime', 'sim', '--delay', '10,20ms', '--sweeps-dir', '/sys/sweeps']),
      '--sweeps-dir /sys/sweeps: /sys/sweeps is under /sys',
      before,
    );
  });
});

describe('run folders that are missing, files or damaged', () => {
  const damaged = join(work, 'damaged-run');
  mkdirSync(damaged);
  writeFileSync(join(damaged, 'summary.json'), '{not json');
  writeFileSync(join(damaged, 'scenario.resolved.json'), '{"vehicles": 3}');

  it.each([
    [['summary', 'runs/nope'], /error: runs\/nope: no such run folder\nhint: pass runs\/<run-id> as printed by `cavsim up`/],
    [['summary', aFile], `${aFile} is a file, not a run folder`],
    [['summary', work], `${work} has no summary.json: the run has not finished`],
    [['summary', damaged], `${damaged}/summary.json is damaged: not valid JSON`],
    [['report', 'runs/nope'], 'runs/nope: no such sweep or run folder'],
    [['report', aFile], `${aFile} is a file, not a sweep or run folder`],
    [['report', damaged], `${damaged}/summary.json is damaged`],
    [['view', 'runs/nope', '--no-open'], 'runs/nope: no such run or sweep folder'],
    [['view', aFile, '--no-open'], `${aFile} is a file, not a run or sweep folder`],
    [['view', damaged, '--no-open'], `${damaged}/scenario.resolved.json is not a resolved cavsim scenario`],
    [['view', damaged, '--live', '--no-open'], `${damaged}/scenario.resolved.json is not a resolved cavsim scenario`],
    [['waypoints', 'record', aFile, '--vehicle', 'car0'], `${aFile} is a file, not a run folder`],
    [['sweep', '--resume', damaged, '--runtime', 'sim'], /no sweep/],
  ])('%j exits 2 naming the path', (args, message) => {
    const before = contents();
    expectRefused(cavsim(args), message, before);
  });

  // What a run folder holds may have been planted by a vehicle that shared it: read nothing through a link.
  it('mcap, report and replay on a run whose CSV is a link to /dev/zero, whose scenario is empty or whose manifest is not JSON exit 2, and never hang', () => {
    const planted = join(work, 'planted-run');
    cpSync(join(history, 'good'), planted, { recursive: true });
    rmSync(join(planted, 'vehicles.csv'));
    symlinkSync('/dev/zero', join(planted, 'vehicles.csv'));
    writeFileSync(join(planted, 'manifest.json'), '{not json');
    const empty = join(work, 'empty-scenario-run');
    cpSync(join(history, 'good'), empty, { recursive: true });
    writeFileSync(join(empty, 'scenario.resolved.json'), '');
    const before = contents();
    expectRefused(cavsim(['mcap', planted]), `${planted}/vehicles.csv is a link; cavsim does not follow links in a run folder`, before);
    expectRefused(cavsim(['report', planted]), `${planted}/vehicles.csv is a link`, before);
    expectRefused(cavsim(['replay', planted]), `${planted}/manifest.json is damaged: not valid JSON`, before);
    expectRefused(cavsim(['mcap', empty]), `${empty}/scenario.resolved.json is damaged: not valid JSON`, before);
  });
});

describe('sweep sizes and counts', () => {
  it.each([
    [['--delay', '10..20ms:10ms', '--repeat', '1e12'], '--repeat "1e12": give a whole number from 1 to 10,000, in plain digits'],
    [['--delay', '10..20ms:10ms', '--repeat', '1.5'], '--repeat "1.5"'],
    [['--delay', '10..20ms:10ms', '--repeat', '0x10'], '--repeat "0x10"'],
    [['--delay', '10..20ms:10ms', '--jobs', '-1'], '--jobs "-1": give a whole number of 1 or more'],
    [
      ['--delay', '10..20ms:1e-9ms'],
      '--delay: "10..20ms:1e-9ms" gives 10,000,000,001 values, more than the 100,000 runs a sweep may plan; use a larger step',
    ],
    [['--delay', '300..10ms'], '--delay: "300..10ms": the range runs backwards'],
    [['--delay', '10..300ms:0ms'], 'the step must be greater than zero'],
    [['--delay', '10,10ms'], 'gives 10ms twice'],
    [
      ['--delay', '10..300ms:10ms', '--set', 'vehicles.car1.start.speed=1..10:0.01', '--repeat', '10'],
      'the sweep would plan 270,300 runs (30 values of network.delay × 901 values of vehicles.car1.start.speed × --repeat 10); a sweep plans at most 100,000',
    ],
    [
      ['--find-critical', 'delay', '--range', '10..500ms', '--tolerance', '5ms', '--coarse', '100000', '--repeat', '2'],
      'the sweep would plan 200,000 runs',
    ],
    [['--find-critical', 'delay', '--range', '10..500ms', '--tolerance', '1e-9ms'], '--tolerance 1e-9ms: finer than the 0.000001ms'],
  ])('sweep %j exits 2 before anything is allocated', (flags, message) => {
    const before = contents();
    expectRefused(cavsim(['sweep', HEAD_ON, '--runtime', 'sim', ...flags]), message, before);
  });

  it('--jobs 64 on a 2-run sweep runs at most 2 at once, and says when the cores are fewer', () => {
    const r = cavsim(['sweep', HEAD_ON, '--runtime', 'sim', '--delay', '10,20ms', '--jobs', '64', '--no-plots', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`2 runs \\(sim, ${Math.min(2, availableParallelism())} at a time\\)`));
    if (availableParallelism() < 64)
      expect(r.stderr).toContain(
        `note: --jobs 64: this machine has ${availableParallelism()} cores; running at most ${availableParallelism()} at once`,
      );
    expect(JSON.parse(r.stdout).runs).toBe(2);
  });
});

describe('the last scenario, when a newer run record is damaged', () => {
  it('sweep passes over the damaged record, naming it, and says which run it took the scenario from', () => {
    const runs = join(work, 'broken-history');
    cpSync(join(history, 'good'), join(runs, 'good'), { recursive: true });
    mkdirSync(join(runs, 'zz-newer'));
    writeFileSync(join(runs, 'zz-newer', 'scenario.resolved.json'), '{not json');
    const r = cavsim(['sweep', '--runtime', 'sim', '--delay', '10,20ms', '--no-plots'], { CAVSIM_RUNS_DIR: runs });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: passed over a run: ${join(runs, 'zz-newer', 'scenario.resolved.json')} is damaged: not valid JSON`);
    expect(r.stderr).toContain(`note: sweeping ${HEAD_ON}, the scenario of run good`);
  });
});

describe('other flags', () => {
  it.each([
    [['view', ROOT, '--port', '1e3', '--no-open'], '--port "1e3": give a whole number from 0 to 65,535'],
    [['view', ROOT, '--port', '99999', '--no-open'], '--port "99999"'],
    [
      ['up', HEAD_ON, '--runtime', 'sim', '--runs-dir', ROOT, '--run-id', 'scenarios'],
      `--run-id scenarios: ${join(ROOT, 'scenarios')} already holds a run`,
    ],
    [['teardown', '--run', '../../etc'], '--run: "../../etc" is not a run id'],
  ])('%j exits 2', (args, message) => {
    const before = contents();
    expectRefused(cavsim(args), message, before);
  });

  it('waypoints: a spacing that would make billions of points, an empty time, an output that is a folder', () => {
    const good = join(history, 'good');
    const before = contents();
    expectRefused(
      cavsim(['waypoints', 'record', good, '--vehicle', 'car0', '--spacing', '1e-9']),
      '--spacing "1e-9": give a distance in metres of at least 0.001',
      before,
    );
    expectRefused(cavsim(['waypoints', 'record', good, '--vehicle', 'car0', '--from', '']), '--from "": give a time in seconds', before);
    expectRefused(cavsim(['waypoints', 'record', good, '--vehicle', 'car0', '-o', work]), `--output ${work}: is a folder`, before);
    expectRefused(
      cavsim(['waypoints', 'record', good, '--vehicle', 'car0', '-o', join(work, 'no', 'x.csv')]),
      'is in a folder that does not exist',
      before,
    );
  });
});

describe('Slurm resources', () => {
  it('a partition with a line break, a time limit of "forever" and a negative memory exit 2, naming each flag, before anything is written', () => {
    const before = contents();
    const sweep = (extra: string[]) => cavsim(['sweep', HEAD_ON, '--delay', '10ms,300ms', '--executor', 'slurm', '--dry-run', ...extra]);
    expectRefused(
      sweep(['--partition', 'debug\n/bin/rm -rf /tmp/x']),
      /--partition: "debug\\n\/bin\/rm -rf \/tmp\/x" is not a partition name/,
      before,
    );
    expectRefused(sweep(['--time', 'forever']), '--time: "forever" is not a Slurm time limit', before);
    expectRefused(sweep(['--mem', '-2G']), '--mem: "-2G" is not a memory size', before);
    const fine = sweep(['--partition', 'gpu,cpu', '--time', '1-00:00:00', '--mem', '512M']);
    expect(fine.status, fine.stderr).toBe(0);
    expect(fine.stdout).toContain('#SBATCH --partition=gpu,cpu');
  });
});

describe('a Slurm configuration that is not there', () => {
  it('SLURM_CONF naming no file fails at once with exit 3, naming the variable, and writes nothing', () => {
    const before = contents();
    const r = cavsim(['sweep', HEAD_ON, '--delay', '10ms,300ms', '--executor', 'slurm'], { SLURM_CONF: join(work, 'no-such-slurm.conf') });
    expect(r.signal, 'cavsim hung').toBeNull();
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toContain(`error: SLURM_CONF=${join(work, 'no-such-slurm.conf')}: no such file`);
    expect(contents()).toEqual(before);
  });
});
