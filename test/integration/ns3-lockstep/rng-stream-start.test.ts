import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockstepBinary } from '../../../src/channel/ns3/builtin-programs.js';
import { ns3LockstepProblem, requireReal } from '../../support/real-components.js';

const real = requireReal('ns3-lockstep/rng-stream-start.test.ts', ns3LockstepProblem());
const SOURCE = join(import.meta.dirname, '../../support/rng-stream-draws.cc');
const dir = mkdtempSync(join(tmpdir(), 'cavsim-rng-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Builds the draw printer against ns-3's core library; `fast` puts the lock-step program's constructor in. */
function build(fast: boolean): string {
  const flags = execFileSync('pkg-config', ['--cflags', '--libs', 'ns3-core'], { encoding: 'utf8' })
    .split(/\s+/)
    .filter((f) => f && !/^-I.*[;\\]$/.test(f));
  const binary = join(dir, fast ? 'draws-fast' : 'draws-ns3');
  execFileSync('g++', ['-O2', '-std=c++17', ...(fast ? ['-DCAVSIM_FAST_START'] : []), '-o', binary, SOURCE, ...flags]);
  return binary;
}

describe.skipIf(real.skip)("the lock-step program's RngStream constructor", () => {
  beforeAll(() => real.assertPresent());

  it("places every stream where ns-3's own does: the same draws for every seed, stream and substream", () => {
    const ns3 = spawnSync(build(false), { encoding: 'utf8' });
    const fast = spawnSync(build(true), { encoding: 'utf8' });
    expect(ns3.status, ns3.stderr).toBe(0);
    expect(fast.status, fast.stderr).toBe(0);
    const lines = ns3.stdout.trim().split('\n');
    expect(lines).toHaveLength(4 * 12 * 7 + 3);
    expect(new Set(lines).size).toBe(lines.length); // every stream differs from every other
    expect(fast.stdout).toBe(ns3.stdout);
    // ns-3's random variables, made inside libns3-core, reached the program's constructor
    expect(fast.stderr).toMatch(/placed through ns-3: [1-9]/);
  }, 120_000);

  it('is the one the lock-step programs define, for libns3-core to call', async () => {
    for (const wifi of [false, true]) {
      const symbols = execFileSync('nm', ['-D', '--defined-only', await lockstepBinary(wifi)], { encoding: 'utf8' });
      expect(symbols).toContain('_ZN3ns39RngStreamC1Ejmm');
    }
  }, 120_000);
});
