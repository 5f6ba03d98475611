import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { type Arrival, V2VEndpoint } from '../../../../../src/runtime/emulated/v2v/transport.js';
import { epochNs } from '../../../../../src/runtime/emulated/v2v/wire.js';

const open: V2VEndpoint[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

async function endpoint(name: string, arrivals: Arrival[] = []): Promise<V2VEndpoint> {
  const e = await V2VEndpoint.open({ name, bindAddress: '127.0.0.1', port: 0, onArrival: (a) => arrivals.push(a) });
  open.push(e);
  return e;
}

async function closedPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const { port } = s.address();
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('V2VEndpoint.send', () => {
  it('delivers to several peers, each message stamped no earlier than the send call', async () => {
    const atB: Arrival[] = [];
    const atC: Arrival[] = [];
    const a = await endpoint('car0');
    const b = await endpoint('car1', atB);
    const c = await endpoint('car2', atC);
    for (let i = 0; i < 3; i++) {
      const beforeEpoch = epochNs();
      await a.send({ id: `car0-${i}`, to: 'car1', address: '127.0.0.1', port: b.localPort, type: 't', body: { i } });
      await a.send({ id: `car0-${i}`, to: 'car2', address: '127.0.0.1', port: c.localPort, type: 't', body: { i } });
      await expect.poll(() => atB.length + atC.length).toBe(2 * (i + 1));
      expect(BigInt(atB[i].datagram.sentAtNs)).toBeGreaterThanOrEqual(beforeEpoch);
    }
    expect(atB.map((x) => x.datagram.body)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
    expect(atC.map((x) => x.datagram.body)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
  });

  it('reports a peer whose port is closed as a failed send, never as a crash', async () => {
    const a = await endpoint('car0');
    const port = await closedPort();
    const outcomes: string[] = [];
    for (let i = 0; i < 3; i++) {
      await a.send({ id: `car0-${i}`, to: 'car9', address: '127.0.0.1', port, type: 't', body: {} }).then(
        () => outcomes.push('sent'),
        (err: NodeJS.ErrnoException) => outcomes.push(err.code ?? 'error'),
      );
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(outcomes[0]).toBe('sent');
    expect(outcomes.every((o) => o === 'sent' || o === 'ECONNREFUSED')).toBe(true);
  });
});
