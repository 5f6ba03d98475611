import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunFile } from '../../../src/run/read-run-file.js';
import { scratchDir } from '../../support/scratch-dir.js';

const dir = scratchDir('cavsim-run-file-');

describe('reading a file back from a run folder', () => {
  it('reads a regular file, and says undefined for one that is not there', () => {
    writeFileSync(join(dir, 'events.csv'), 't_s,vehicle\n');
    expect(readRunFile(join(dir, 'events.csv'))).toBe('t_s,vehicle\n');
    expect(readRunFile(join(dir, 'nothing.csv'))).toBeUndefined();
  });

  it('refuses a link (to a device, or to a host file), a folder and a pipe, naming the file, without reading them', () => {
    symlinkSync('/dev/zero', join(dir, 'vehicles.csv'));
    symlinkSync('/etc/hostname', join(dir, 'pairs.csv'));
    mkdirSync(join(dir, 'v2v.csv'));
    execFileSync('mkfifo', [join(dir, 'collisions.csv')]);
    expect(() => readRunFile(join(dir, 'vehicles.csv'))).toThrow(
      `${join(dir, 'vehicles.csv')} is a link; cavsim does not follow links in a run folder`,
    );
    expect(() => readRunFile(join(dir, 'pairs.csv'))).toThrow(/is a link/);
    expect(() => readRunFile(join(dir, 'v2v.csv'))).toThrow(/is a folder, not a file/);
    expect(() => readRunFile(join(dir, 'collisions.csv'))).toThrow(/is not a regular file \(a device, pipe or socket\)/);
  });
});
