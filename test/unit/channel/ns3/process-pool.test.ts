import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LockstepChannel } from '../../../../src/channel/ns3/lockstep/lockstep-channel.js';
import { LockstepProcessPool } from '../../../../src/channel/ns3/lockstep/process-pool.js';

const FAKE = resolve(import.meta.dirname, '../../../support/fake-serving-ns3.mjs');
let pool = new LockstepProcessPool();
const start = (argv: string[] = ['--nodes=2']) => LockstepChannel.start<number>({ binary: FAKE, argv, names: ['a', 'b'], pool });

afterEach(() => {
  pool.close();
  pool = new LockstepProcessPool();
});

/** The pid of the process a new run is given (the run ends cleanly, handing it back). */
async function pidOfNextRun(): Promise<number | undefined> {
  const channel = start();
  await channel.ready;
  await channel.close();
  return channel.pid;
}

describe('lock-step process pool', () => {
  it('a run that ended cleanly leaves its process to the next run', async () => {
    const first = start();
    await first.ready;
    await first.advanceTo(0.01);
    await first.close();
    expect(await pidOfNextRun()).toBe(first.pid);
  });

  it('a run that ended with a request unanswered ends its process; the next run gets a new one', async () => {
    const first = start();
    await first.ready;
    first.send({ payload: 1, from: 'a', to: ['b'], broadcast: false, sizeBytes: 10 }, 0);
    first.prefetch(0.01);
    await first.close();
    await first.exited;
    expect(await pidOfNextRun()).not.toBe(first.pid);
  });

  it('a run closed before ns-3 was ready settles `ready`, so what waits on it (the walls file) is let go', async () => {
    const channel = start();
    await channel.close();
    await expect(channel.ready).rejects.toThrow(/before ns-3 was ready/);
  });

  it('a process that died while idle is not handed out', async () => {
    const pid = await pidOfNextRun();
    process.kill(pid!, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    expect(await pidOfNextRun()).not.toBe(pid);
  });

  it('a process that writes while no run is attached is ended', async () => {
    const first = start(['--chatter']);
    await first.ready;
    await first.close();
    await first.exited;
    expect(await pidOfNextRun()).not.toBe(first.pid);
  });

  it('a prewarmed process serves the next run', async () => {
    pool.prewarm(FAKE);
    pool.prewarm(FAKE); // one idle process is enough
    expect(pool.idleCount(FAKE)).toBe(1);
    const channel = start();
    expect(pool.idleCount(FAKE)).toBe(0);
    await channel.ready;
    await channel.close();
    expect(pool.idleCount(FAKE)).toBe(1);
  });

  it('refuses an argument that would break the line protocol, and leaves no process behind', () => {
    expect(() => start(['--obstacles=/tmp/a\tb'])).toThrow(/tab or a line break/);
    expect(pool.idleCount(FAKE)).toBe(0);
  });
});
