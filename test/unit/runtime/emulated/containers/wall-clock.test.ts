import { createSocket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { systemWallClock } from '../../../../../src/runtime/emulated/containers/wall-clock.js';

const clock = systemWallClock;

describe('systemWallClock.sleepUntil', () => {
  it('never resolves before the target, in the timer stretch or the fine one', async () => {
    for (const aheadNs of [300_000n, 1_200_000n, 4_000_000n]) {
      const target = clock.nowNs() + aheadNs;
      await clock.sleepUntil(target);
      expect(clock.nowNs()).toBeGreaterThanOrEqual(target);
    }
  });

  it('returns at once for a target in the past or an aborted signal', async () => {
    const before = clock.nowNs();
    await clock.sleepUntil(before - 1_000_000n);
    const aborted = AbortSignal.abort();
    await clock.sleepUntil(clock.nowNs() + 10_000_000_000n, aborted);
    expect(clock.nowNs() - before).toBeLessThan(5_000_000_000n);
  });

  it('reads what arrived on a socket during the final wait before it resolves', async () => {
    const receiver = createSocket('udp4');
    const sender = createSocket('udp4');
    await new Promise<void>((ok) => receiver.bind(0, '127.0.0.1', () => ok()));
    let received = false;
    receiver.on('message', () => (received = true));
    try {
      // Sent before the wait starts, so it is waiting in the kernel for the whole fine stretch.
      await new Promise<void>((ok, fail) => sender.send('drive', receiver.address().port, '127.0.0.1', (err) => (err ? fail(err) : ok())));
      await clock.sleepUntil(clock.nowNs() + 1_000_000n);
      expect(received).toBe(true);
    } finally {
      sender.close();
      receiver.close();
    }
  });
});
