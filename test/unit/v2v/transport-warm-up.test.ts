import { afterEach, describe, expect, it } from 'vitest';
import { V2VEndpoint, type Arrival } from '../../../src/v2v/transport.js';

const open: V2VEndpoint[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

async function endpoint(name: string, arrivals: Arrival[]): Promise<V2VEndpoint> {
  const e = await V2VEndpoint.open({ name, bindAddress: '127.0.0.1', port: 0, onArrival: (a) => arrivals.push(a) });
  open.push(e);
  return e;
}

describe('V2VEndpoint.warmUp', () => {
  it('sends its datagrams to itself only, marked as warm-up from its own name', async () => {
    const mine: Arrival[] = [];
    const other: Arrival[] = [];
    const a = await endpoint('car0', mine);
    await endpoint('car1', other);
    await a.warmUp(3);
    expect(mine.map((m) => [m.datagram.from, m.datagram.to, m.datagram.type])).toEqual([
      ['car0', 'car0', 'warm-up'],
      ['car0', 'car0', 'warm-up'],
      ['car0', 'car0', 'warm-up'],
    ]);
    expect(other).toEqual([]);
  });

  it('leaves the socket delivering real messages afterwards', async () => {
    const received: Arrival[] = [];
    const a = await endpoint('car0', []);
    const b = await endpoint('car1', received);
    await b.warmUp(2);
    await a.send({ id: 'car0-1', to: 'car1', address: '127.0.0.1', port: b.localPort, type: 'brake', body: { reason: 'ttc' } });
    await expect.poll(() => received.filter((r) => r.datagram.type === 'brake').length).toBe(1);
    expect(received.find((r) => r.datagram.type === 'brake')!.datagram.body).toEqual({ reason: 'ttc' });
  });
});
