import { createSocket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { type Arrival, type ForgedArrival, V2VEndpoint } from '../../../../../src/runtime/emulated/v2v/transport.js';
import { encodeDatagram } from '../../../../../src/runtime/emulated/v2v/wire.js';

const sendFrom = (source: string, port: number, id: string, from = 'x') =>
  new Promise<void>((resolve, reject) => {
    const s = createSocket('udp4');
    s.bind(0, source, () =>
      s.send(
        encodeDatagram({ id, from, to: 'me', type: 't', sentAtNs: '1', body: {} }),
        port,
        '127.0.0.1',
        (err) => (s.close(), err ? reject(err) : resolve()),
      ),
    );
  });

describe('V2V endpoint guards', () => {
  it('counts only datagrams from the peers it accepts', async () => {
    const arrivals: Arrival[] = [];
    const e = await V2VEndpoint.open({
      name: 'me',
      bindAddress: '127.0.0.1',
      port: 0,
      acceptFrom: new Set(['127.0.0.9']),
      onArrival: (a) => arrivals.push(a),
    });
    try {
      await sendFrom('127.0.0.5', e.localPort, 'stranger');
      await sendFrom('127.0.0.9', e.localPort, 'peer');
      await new Promise((r) => setTimeout(r, 100));
      expect(arrivals.map((a) => a.datagram.id)).toEqual(['peer']);
    } finally {
      await e.close();
    }
  });

  it('waits for its address to appear, says so once, and gives up with EADDRNOTAVAIL after the timeout', async () => {
    let waits = 0;
    const started = Date.now();
    // 192.0.2.1 (TEST-NET-1) is never an address of this machine
    await expect(
      V2VEndpoint.open({
        name: 'me',
        bindAddress: '192.0.2.1',
        port: 0,
        bindTimeoutMs: 200,
        onWaitingForAddress: () => waits++,
        onArrival: () => {},
      }),
    ).rejects.toMatchObject({ code: 'EADDRNOTAVAIL' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(waits).toBe(1);
  });
});

describe('V2V provenance', () => {
  it('a datagram is from the peer whose address it came from: one claiming another car (or no car) is dropped and reported', async () => {
    const arrivals: Arrival[] = [];
    const forged: ForgedArrival[] = [];
    const peerNames = new Map([['127.0.0.9', 'car1']]);
    const e = await V2VEndpoint.open({
      name: 'me',
      bindAddress: '127.0.0.1',
      port: 0,
      acceptFrom: new Set(['127.0.0.9']),
      peerNames,
      onForged: (f) => forged.push(f),
      onArrival: (a) => arrivals.push(a),
    });
    try {
      await sendFrom('127.0.0.9', e.localPort, 'honest', 'car1');
      await sendFrom('127.0.0.9', e.localPort, 'as-car7', 'car7');
      await sendFrom('127.0.0.9', e.localPort, 'as-car2', 'car2');
      await new Promise((r) => setTimeout(r, 100));
      expect(arrivals.map((a) => a.datagram.id)).toEqual(['honest']);
      expect(forged).toEqual([
        { claimed: 'car7', sender: 'car1', id: 'as-car7' },
        { claimed: 'car2', sender: 'car1', id: 'as-car2' },
      ]);
    } finally {
      await e.close();
    }
  });
});
