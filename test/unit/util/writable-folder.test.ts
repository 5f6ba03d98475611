import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserInputError } from '../../../src/errors.js';
import { checkWritableFolder, chooseFolder } from '../../../src/util/writable-folder.js';

const RUNS = { flag: '--runs-dir', env: 'CAVSIM_RUNS_DIR', fallback: 'runs' };
const root = mkdtempSync(join(tmpdir(), 'cavsim-writable-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const refusal = (path: string, origin = `--runs-dir ${path}`) => {
  try {
    checkWritableFolder({ path, origin });
  } catch (err) {
    expect(err).toBeInstanceOf(UserInputError);
    return (err as UserInputError).message;
  }
  throw new Error(`${path} was not refused`);
};

describe('choosing an output folder', () => {
  it('takes the flag, else the environment variable, else ./fallback, and says which', () => {
    expect(chooseFolder(RUNS, '/data/runs', { CAVSIM_RUNS_DIR: '/elsewhere' })).toEqual({
      path: '/data/runs',
      origin: '--runs-dir /data/runs',
    });
    expect(chooseFolder(RUNS, undefined, { CAVSIM_RUNS_DIR: '/elsewhere' })).toEqual({
      path: '/elsewhere',
      origin: 'CAVSIM_RUNS_DIR=/elsewhere',
    });
    expect(chooseFolder(RUNS, undefined, {})).toEqual({ path: resolve('runs'), origin: 'the default folder ./runs' });
  });

  it('refuses an empty flag (it would mean the current folder) and treats an empty variable as unset', () => {
    expect(() => chooseFolder(RUNS, '', {})).toThrow(/--runs-dir is empty/);
    expect(() => chooseFolder(RUNS, '  ', {})).toThrow(UserInputError);
    expect(chooseFolder(RUNS, undefined, { CAVSIM_RUNS_DIR: '' }).path).toBe(resolve('runs'));
  });
});

describe('checking a folder can be written, before anything is made', () => {
  it('accepts an existing folder and a folder still to be made, and makes nothing', () => {
    const existing = join(root, 'existing');
    mkdirSync(existing);
    expect(checkWritableFolder({ path: existing, origin: 'x' })).toBe(existing);
    expect(checkWritableFolder({ path: join(existing, 'a', 'b', 'c'), origin: 'x' })).toBe(join(existing, 'a', 'b', 'c'));
    expect(readdirSync(existing)).toEqual([]);
  });

  it('refuses a file, and a path through a file, naming the flag', () => {
    const file = join(root, 'hostname');
    writeFileSync(file, 'x\n');
    expect(refusal(file)).toBe(`--runs-dir ${file}: ${file} is a file, not a folder`);
    expect(refusal(join(file, 'runs', 'deeper'))).toMatch(new RegExp(`${file} is a file, not a folder, so .*deeper cannot be made`));
  });

  it('refuses /proc and /sys outright (recursive mkdir never returns under /proc), naming the environment variable', () => {
    expect(refusal('/proc/cavsim-runs', 'CAVSIM_RUNS_DIR=/proc/cavsim-runs')).toMatch(
      /^CAVSIM_RUNS_DIR=\/proc\/cavsim-runs: .* under \/proc, a kernel file system/,
    );
    expect(refusal('/sys/kernel/cavsim')).toMatch(/under \/sys/);
    expect(refusal('/proc')).toMatch(/under \/proc/);
  });

  it('refuses a link to nothing', () => {
    const link = join(root, 'dangling');
    symlinkSync(join(root, 'no-such-target'), link);
    expect(refusal(join(link, 'runs'))).toMatch(/a link to nothing/);
  });
});
