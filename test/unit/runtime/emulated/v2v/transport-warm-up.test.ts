import { afterEach, describe, expect, it } from 'vitest';
import { type Arrival, V2VEndpoint } from '../../../../../src/runtime/emulated/v2v/transport.js';

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
  it('sends its datagrams to itself only; they come back and are not delivered as arrivals', async () => {
    const mine: Arrival[] = [];
    const other: Arrival[] = [];
    const a = await endpoint('car0', mine);
    await endpoint('car1', other);
    expect(await a.warmUp(3)).toBe(3);
    expect(mine).toEqual([]);
    expect(other).toEqual([]);
  });

  it('still delivers a real message from its own address when that address is accepted', async () => {
    const received: Arrival[] = [];
    const a = await endpoint('car0', received);
    await a.send({ id: 'car0-1', to: 'car0', address: '127.0.0.1', port: a.localPort, type: 'probe', body: {} });
    await expect.poll(() => received.length).toBe(1);
    expect(received[0].datagram.type).toBe('probe');
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
