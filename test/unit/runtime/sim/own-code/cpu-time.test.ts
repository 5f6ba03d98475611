import { describe, expect, it } from 'vitest';
import { CpuClock } from '../../../../../src/runtime/sim/own-code/cpu-time.js';

function burn(ms: number): number {
  const end = performance.now() + ms;
  let x = 0;
  while (performance.now() < end) x += Math.sqrt(x + 1);
  return x;
}

const linux = process.platform === 'linux';

describe.runIf(linux)('CpuClock', () => {
  it('reads this process’s CPU time as a non-negative number of seconds', () => {
    const clock = new CpuClock(process.pid);
    try {
      const s = clock.seconds();
      expect(typeof s).toBe('number');
      expect(s).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(s)).toBe(true);
    } finally {
      clock.close();
    }
  });

  it('grows by about the CPU time burnt on the main thread', () => {
    const clock = new CpuClock(process.pid);
    try {
      const s0 = clock.seconds()!;
      expect(burn(30)).toBeGreaterThan(0);
      const s1 = clock.seconds()!;
      expect(s1).toBeGreaterThan(s0);
      // Up to 30 ms of wall time; at least some of it on the CPU, and never more than the wall time plus slack.
      expect(s1 - s0).toBeGreaterThan(0.005);
      expect(s1 - s0).toBeLessThan(1);
    } finally {
      clock.close();
    }
  });

  it('re-reads the same open file: readings never go backwards', () => {
    const clock = new CpuClock(process.pid);
    try {
      let last = clock.seconds()!;
      for (let i = 0; i < 5; i++) {
        burn(2);
        const s = clock.seconds()!;
        expect(s).toBeGreaterThanOrEqual(last);
        last = s;
      }
    } finally {
      clock.close();
    }
  });

  it('gives undefined for a process that does not exist', () => {
    const clock = new CpuClock(2 ** 22 + 12345);
    expect(clock.seconds()).toBeUndefined();
    expect(() => clock.close()).not.toThrow();
  });

  it('close() is harmless twice, and reading after close gives undefined', () => {
    const clock = new CpuClock(process.pid);
    expect(clock.seconds()).toBeTypeOf('number');
    clock.close();
    expect(() => clock.close()).not.toThrow();
    expect(clock.seconds()).toBeUndefined();
  });
});
