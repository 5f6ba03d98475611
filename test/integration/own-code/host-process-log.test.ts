import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startHostProcess } from '../../../src/runtime/sim/own-code/host-process.js';
import { scratchDir } from '../../support/scratch-dir.js';

/** A vehicle's own code as a real process on this host: what it writes is kept, up to a cap. */
const dir = scratchDir('cavsim-own-code-log-');

describe("own code's log", () => {
  it('keeps both streams, and the last lines are there as soon as the code has exited', async () => {
    const runner = startHostProcess(['sh', '-c', 'echo to stdout; echo to stderr >&2; exit 3'], {
      cwd: dir,
      env: {},
      logFile: join(dir, 'a.log'),
    });
    expect(await runner.exited).toEqual({ code: 3, signal: null });
    expect((await runner.logTail()).sort()).toEqual(['to stderr', 'to stdout']);
  });

  it('is cut at its cap with a line that says so, while the code goes on writing without blocking', async () => {
    const logFile = join(dir, 'flood.log');
    const runner = startHostProcess(['sh', '-c', 'head -c 3000000 /dev/zero | tr "\\\\0" x; echo; echo done >&2'], {
      cwd: dir,
      env: {},
      logFile,
      logCapBytes: 100_000,
    });
    expect(await runner.exited).toEqual({ code: 0, signal: null });
    const size = statSync(logFile).size;
    expect(size).toBeGreaterThan(100_000);
    expect(size).toBeLessThan(100_200);
    expect(readFileSync(logFile, 'utf8')).toMatch(/\[cavsim: this log was cut at 98 KiB; the code went on writing\]\n$/);
  });
});
