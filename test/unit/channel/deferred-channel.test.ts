import { describe, expect, it } from 'vitest';
import { LatencyChannel } from '../../../src/channel/builtin/latency-channel.js';
import { DeferredChannel } from '../../../src/channel/deferred-channel.js';

describe('a channel opened on its first frame', () => {
  it('opens nothing while no frame is sent, then passes everything through', async () => {
    let opened = 0;
    const channel = new DeferredChannel<number>(() => {
      opened++;
      return new LatencyChannel<number>({ delay: 0.01, jitter: 0, dataRate: 1e9, loss: 0, seed: 1 });
    });
    await channel.advanceTo(1);
    channel.prefetch(1.01);
    expect(channel.deliverDue(1)).toEqual([]);
    await channel.close();
    expect(opened).toBe(0);
    channel.send({ payload: 7, from: 'a', to: ['b'], broadcast: false, sizeBytes: 100 }, 1);
    channel.send({ payload: 8, from: 'a', to: ['b'], broadcast: false, sizeBytes: 100 }, 1);
    expect(opened).toBe(1);
    expect(channel.deliverDue(2).map((d) => d.payload)).toEqual([7, 8]);
  });
});
