import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserInputError } from '../../../../../src/errors.js';
import { checkOwnCodeRunnable, findProgram, scenarioFolder } from '../../../../../src/runtime/sim/own-code/runnable.js';
import type { ResolvedScenario } from '../../../../../src/scenario/resolved.js';

const root = mkdtempSync(join(tmpdir(), 'cavsim-runnable-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(rel: string, mode: number): string {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, mode);
  return path;
}

const exe = file('bin/drive.sh', 0o755);
const plain = file('bin/notes.sh', 0o644);
mkdirSync(join(root, 'bin/folder'), { recursive: true });
chmodSync(join(root, 'bin/folder'), 0o755);
const otherBin = join(root, 'other');
file('other/drive.sh', 0o755);
file('other/onlyhere', 0o755);
const nodeDir = dirname(process.execPath);
const nodeName = basename(process.execPath);

const scenario = (vehicles: { name: string; command?: string[]; image?: string }[], sourceFile = join(root, 'scenario.yaml')) =>
  ({ sourceFile, vehicles }) as unknown as ResolvedScenario;

describe('findProgram', () => {
  it('finds node on a PATH given as argument', () => {
    expect(findProgram(nodeName, '/', `/nonexistent-cavsim${delimiter}${nodeDir}`)).toBe(join(nodeDir, nodeName));
  });

  it('takes the first PATH entry that holds an executable file, skipping empty entries', () => {
    expect(findProgram('drive.sh', '/', `${delimiter}${join(root, 'bin')}${delimiter}${otherBin}`)).toBe(exe);
    expect(findProgram('drive.sh', '/', `${otherBin}${delimiter}${join(root, 'bin')}`)).toBe(join(otherBin, 'drive.sh'));
    expect(findProgram('onlyhere', '/', `${join(root, 'bin')}${delimiter}${otherBin}`)).toBe(join(otherBin, 'onlyhere'));
  });

  it('skips files on PATH that are not executable, and directories', () => {
    expect(findProgram('notes.sh', '/', join(root, 'bin'))).toBeUndefined();
    expect(findProgram('folder', '/', join(root, 'bin'))).toBeUndefined();
  });

  it('returns undefined for a program on no PATH entry, or with an empty PATH', () => {
    expect(findProgram('cavsim-no-such-program-xyz', '/', `${nodeDir}${delimiter}${join(root, 'bin')}`)).toBeUndefined();
    expect(findProgram(nodeName, '/', '')).toBeUndefined();
  });

  it('resolves a path with a slash relative to cwd, not PATH, when executable', () => {
    expect(findProgram('./bin/drive.sh', root, '')).toBe(exe);
    expect(findProgram('bin/drive.sh', root, '')).toBe(exe);
    expect(findProgram('./drive.sh', join(root, 'bin'), '')).toBe(exe);
    // Found on PATH by name, but a slash means relative to cwd only.
    expect(findProgram('./drive.sh', root, join(root, 'bin'))).toBeUndefined();
  });

  it('refuses a relative path to a non-executable file, a directory or nothing', () => {
    expect(findProgram('./bin/notes.sh', root, '')).toBeUndefined();
    expect(findProgram('./bin/folder', root, '')).toBeUndefined();
    expect(findProgram('./bin/missing.sh', root, '')).toBeUndefined();
  });

  it('takes an absolute path as it is, whatever cwd', () => {
    expect(findProgram(exe, '/somewhere/else', '')).toBe(exe);
    expect(findProgram(plain, '/somewhere/else', '')).toBeUndefined();
  });

  it('uses process.env.PATH by default', () => {
    const saved = process.env.PATH;
    process.env.PATH = `${join(root, 'bin')}`;
    try {
      expect(findProgram('drive.sh', '/')).toBe(exe);
    } finally {
      process.env.PATH = saved;
    }
  });
});

describe('scenarioFolder', () => {
  it('is the folder of the scenario file, made absolute', () => {
    expect(scenarioFolder({ sourceFile: join(root, 'a', 'x.yaml') })).toBe(join(root, 'a'));
    expect(scenarioFolder({ sourceFile: 'x.yaml' })).toBe(process.cwd());
  });
});

describe('checkOwnCodeRunnable', () => {
  it('accepts programs found relative to the scenario folder or on PATH', () => {
    expect(() =>
      checkOwnCodeRunnable(
        scenario([
          { name: 'car0', command: ['./bin/drive.sh', '--x'] },
          { name: 'car1', command: [process.execPath, 'x.js'] },
        ]),
      ),
    ).not.toThrow();
    expect(() => checkOwnCodeRunnable(scenario([{ name: 'car0', command: ['sh', '-c', 'true'] }]))).not.toThrow();
  });

  it('refuses a relative program missing from the scenario folder, naming the vehicle field and program', () => {
    let err: unknown;
    try {
      checkOwnCodeRunnable(
        scenario([
          { name: 'car0', command: ['./bin/drive.sh'] },
          { name: 'car7', command: ['./nope.py', 'a'] },
        ]),
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserInputError);
    const e = err as UserInputError;
    expect(e.code).toBe('USER_INPUT');
    expect(e.message).toContain('vehicles.car7.command');
    expect(e.message).toContain('./nope.py');
    expect(e.message).toContain(root);
    expect(e.message).not.toContain('car0');
  });

  it('refuses a relative program that is not executable', () => {
    expect(() => checkOwnCodeRunnable(scenario([{ name: 'car3', command: ['./bin/notes.sh'] }]))).toThrow(
      /vehicles\.car3\.command.*\.\/bin\/notes\.sh/,
    );
  });

  it('refuses a bare program not on PATH, saying so', () => {
    expect(() => checkOwnCodeRunnable(scenario([{ name: 'car2', command: ['cavsim-no-such-program-xyz'] }]))).toThrow(
      /vehicles\.car2\.command: program "cavsim-no-such-program-xyz" not found on PATH/,
    );
  });

  it('reports the first problem as the message and the others as details', () => {
    let err: UserInputError | undefined;
    try {
      checkOwnCodeRunnable(
        scenario([
          { name: 'a', command: ['./x1'] },
          { name: 'b', command: ['./x2'] },
          { name: 'c', command: ['./x3'] },
        ]),
      );
    } catch (e) {
      err = e as UserInputError;
    }
    expect(err).toBeInstanceOf(UserInputError);
    expect(err!.message).toContain('vehicles.a.command');
    expect(err!.details).toHaveLength(2);
    expect(err!.details[0]).toContain('vehicles.b.command');
    expect(err!.details[1]).toContain('vehicles.c.command');
    expect(err!.hint).toBeTruthy();
  });

  it('ignores vehicles running an image, and vehicles without a command', () => {
    expect(() =>
      checkOwnCodeRunnable(
        scenario([{ name: 'car0', image: 'my/image:1', command: ['./not-here'] }, { name: 'car1' }, { name: 'car2', command: undefined }]),
      ),
    ).not.toThrow();
  });

  it('looks for relative programs in the scenario file folder, not the process cwd', () => {
    const sub = join(root, 'bin');
    expect(() => checkOwnCodeRunnable(scenario([{ name: 'car0', command: ['./drive.sh'] }], join(sub, 's.yaml')))).not.toThrow();
    expect(() => checkOwnCodeRunnable(scenario([{ name: 'car0', command: ['./drive.sh'] }], join(root, 's.yaml')))).toThrow(UserInputError);
  });
});
