import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isSameProcessAlive, readStartTime, stopProcess } from '../../../../src/host/exec/process-identity.js';

describe('process identity', () => {
  it('reads a stable start time for a live pid and nothing for a dead one', () => {
    const t = readStartTime(process.pid);
    expect(t).toMatch(/^\d+$/);
    expect(readStartTime(process.pid)).toBe(t);
    expect(readStartTime(2 ** 22 + 1)).toBeUndefined();
  });

  it('stops its own process and leaves a pid whose start time does not match', async () => {
    const child = spawn('sleep', ['30']);
    const exited = new Promise((r) => child.once('exit', r));
    const id = { pid: child.pid!, startTime: readStartTime(child.pid!)! };
    await stopProcess({ ...id, startTime: String(Number(id.startTime) + 1) });
    expect(isSameProcessAlive(id)).toBe(true);
    await stopProcess(id, 1000);
    await exited;
    expect(isSameProcessAlive(id)).toBe(false);
    await stopProcess(id); // already gone: harmless
  });
});
