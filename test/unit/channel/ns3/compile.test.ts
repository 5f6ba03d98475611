import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileChannelProgram, defaultCacheDir } from '../../../../src/channel/ns3/compile.js';
import type { CommandRunner } from '../../../../src/host/exec/command-runner.js';
import { scratchDir } from '../../../support/scratch-dir.js';

function fakeToolchain(version: string) {
  const calls: string[][] = [];
  const runner: CommandRunner = {
    async run(argv) {
      calls.push([...argv]);
      if (argv[1] === '--modversion') return { stdout: version, stderr: '', exitCode: 0 };
      if (argv[0] === 'pkg-config') return { stdout: '-I/usr -I/usr\\; -lns3-core -lns3-csma', stderr: '', exitCode: 0 };
      if (argv[0] === 'g++') writeFileSync(argv[argv.indexOf('-o') + 1], 'binary');
      return { stdout: '', stderr: '', exitCode: 0 };
    },
  };
  return { runner, calls, compiles: () => calls.filter((c) => c[0] === 'g++').length };
}

describe('compileChannelProgram', () => {
  it('compiles once per source and ns-3 version, then serves the cache', async () => {
    const dir = scratchDir('cavsim-ns3-');
    const source = join(dir, 'chan.cc');
    writeFileSync(source, 'int main() {}');
    const t = fakeToolchain('3.37');
    const first = await compileChannelProgram(source, { runner: t.runner, cacheDir: dir });
    expect(await compileChannelProgram(source, { runner: t.runner, cacheDir: dir })).toBe(first);
    expect(t.compiles()).toBe(1);
    const gpp = t.calls.find((c) => c[0] === 'g++')!;
    expect(gpp).toContain(source);
    expect(gpp).toContain('-lns3-csma');
    expect(gpp).not.toContain('-I/usr\\;');

    writeFileSync(source, 'int main() { return 0; }');
    const edited = await compileChannelProgram(source, { runner: t.runner, cacheDir: dir });
    expect(edited).not.toBe(first);
    const upgraded = await compileChannelProgram(source, { runner: fakeToolchain('3.40').runner, cacheDir: dir });
    expect(upgraded).not.toBe(edited);
    expect(upgraded).toContain('ns3.40');
  });

  it('uses CAVSIM_CACHE_DIR, else the XDG cache', () => {
    expect(defaultCacheDir({ CAVSIM_CACHE_DIR: '/x/c' })).toBe('/x/c');
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/home/u/.cache' })).toBe('/home/u/.cache/cavsim');
  });
});
