import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { BridgeClient, type BridgeStatus } from '../../../src/runtime/rosbridge/bridge-client.js';
import { BridgeServer } from '../../../src/runtime/rosbridge/bridge-server.js';
import { type JsonObject, ProtocolError } from '../../../src/runtime/rosbridge/protocol.js';

const STRING = 'std_msgs/msg/String';

/** Real sockets on loopback: the server's op handling as a client sees it. */
describe('BridgeServer with BridgeClient on loopback', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  async function setUp(): Promise<{ server: BridgeServer; url: string; client: () => Promise<BridgeClient> }> {
    const server = await BridgeServer.listen({ host: '127.0.0.1', port: 0 });
    open.push(server);
    const url = `ws://127.0.0.1:${server.port}`;
    return {
      server,
      url,
      client: async () => {
        const c = await BridgeClient.connect(url);
        open.push(c);
        return c;
      },
    };
  }

  const next = <T>(register: (resolve: (v: T) => void) => void) => new Promise<T>(register);
  /** Resolves once the server has handled everything this client sent so far. */
  const roundTrip = async (server: BridgeServer, c: BridgeClient) => {
    const seen = next<void>((ok) => server.subscribe('/sync', STRING, () => ok()));
    c.advertise('/sync', STRING);
    c.publish('/sync', { data: '' });
    await seen;
  };

  it('delivers what the process publishes to subscribed clients, and what clients publish to handlers and subscribers', async () => {
    const { server, client } = await setUp();
    server.advertise('/car0/odom', 'nav_msgs/msg/Odometry');
    const fromHandler = next<[JsonObject, number]>((ok) =>
      server.subscribe('/car0/drive', 'ackermann_msgs/msg/AckermannDriveStamped', (msg, c) => ok([msg, c.id])),
    );
    const a = await client();
    const b = await client();
    const odom = next<JsonObject>((ok) => a.subscribe('/car0/odom', 'nav_msgs/msg/Odometry', ok));
    const driveSeenByB = next<JsonObject>((ok) => b.subscribe('/car0/drive', 'ackermann_msgs/AckermannDriveStamped', ok));
    await roundTrip(server, a);
    await roundTrip(server, b);
    server.publish('/car0/odom', { child_frame_id: 'car0/base_link' });
    expect(await odom).toEqual({ child_frame_id: 'car0/base_link' });
    a.advertise('/car0/drive', 'ackermann_msgs/msg/AckermannDriveStamped');
    a.publish('/car0/drive', { drive: { speed: 2 } });
    const [msg, clientId] = await fromHandler;
    expect(msg).toEqual({ drive: { speed: 2 } });
    expect(clientId).toBeGreaterThan(0);
    expect(await driveSeenByB).toEqual({ drive: { speed: 2 } });
  });

  it('encodes a pre-encoded message only when someone subscribes, once for every subscriber', async () => {
    const { server, client } = await setUp();
    server.advertise('/car0/scan', 'sensor_msgs/msg/LaserScan');
    let encodings = 0;
    const encode = () => (encodings++, '{"ranges":[1.5000000,2.0000000],"intensities":[]}');
    server.publishJson('/car0/scan', encode);
    expect(encodings).toBe(0);
    expect(server.hasSubscribers('/car0/scan')).toBe(false);
    const [a, b] = [await client(), await client()];
    const got = [a, b].map((c) => next<JsonObject>((ok) => c.subscribe('/car0/scan', 'sensor_msgs/msg/LaserScan', ok)));
    await roundTrip(server, a);
    await roundTrip(server, b);
    expect(server.hasSubscribers('/car0/scan')).toBe(true);
    server.publishJson('/car0/scan', encode);
    expect(encodings).toBe(1);
    expect(await Promise.all(got)).toEqual([
      { ranges: [1.5, 2], intensities: [] },
      { ranges: [1.5, 2], intensities: [] },
    ]);
  });

  it('replays the last message of a latched topic to a late subscriber', async () => {
    const { server, client } = await setUp();
    server.advertise('/cavsim/status', STRING, { latch: true });
    server.publish('/cavsim/status', { data: 'first' });
    server.publish('/cavsim/status', { data: 'second' });
    const c = await client();
    expect(await next<JsonObject>((ok) => c.subscribe('/cavsim/status', STRING, ok))).toEqual({ data: 'second' });
  });

  it('answers bad ops with status errors carrying the op id, and keeps the connection', async () => {
    const { server, url } = await setUp();
    server.advertise('/car0/odom', 'nav_msgs/msg/Odometry');
    server.subscribe('/car0/drive', 'ackermann_msgs/msg/AckermannDriveStamped', (msg) => {
      if (typeof (msg.drive as JsonObject | undefined)?.speed !== 'number') throw new ProtocolError('drive.speed must be a number');
    });
    const raw = new WebSocket(url);
    open.push({ close: async () => raw.close() });
    await next<void>((ok) => raw.once('open', () => ok()));
    const replies: JsonObject[] = [];
    const got = (n: number) => next<void>((ok) => raw.on('message', (d) => replies.push(JSON.parse(d.toString())) === n && ok()));
    const all = got(7);
    for (const frame of [
      'garbage',
      { op: 'call_service', id: 'c1', service: '/reset' },
      { op: 'subscribe', id: 's1', topic: '/car0/odom', type: 'std_msgs/msg/String' },
      { op: 'advertise', id: 'a1', topic: '/car0/odom', type: 'std_msgs/msg/String' },
      { op: 'publish', id: 'p1', topic: '/nobody/knows', msg: {} },
      { op: 'publish', id: 'p2', topic: '/car0/drive', msg: { drive: { speed: 'fast' } } },
      { op: 'unsubscribe', id: 'u1', topic: '/never/subscribed' },
    ])
      raw.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    await all;
    expect(replies.map((r) => [r.op, r.level, r.id])).toEqual([
      ['status', 'error', undefined],
      ['status', 'error', 'c1'],
      ['status', 'error', 's1'],
      ['status', 'error', 'a1'],
      ['status', 'error', 'p1'],
      ['status', 'error', 'p2'],
      ['status', 'warning', 'u1'],
    ]);
    expect(String(replies[5].msg)).toContain('drive.speed must be a number');
    expect(raw.readyState).toBe(WebSocket.OPEN);
  });

  it('stops delivering after unsubscribe and reports status ops to the client', async () => {
    const { server, client } = await setUp();
    server.advertise('/x', STRING);
    server.advertise('/y', STRING);
    const c = await client();
    const xs: string[] = [];
    let firstX!: () => void;
    const before = next<void>((ok) => (firstX = ok));
    const unsubscribe = c.subscribe('/x', STRING, (m) => {
      xs.push(String(m.data));
      firstX();
    });
    const y = next<JsonObject>((ok) => c.subscribe('/y', STRING, ok));
    await roundTrip(server, c);
    server.publish('/x', { data: 'before' });
    await before;
    unsubscribe();
    await roundTrip(server, c);
    server.publish('/x', { data: 'after' });
    server.publish('/y', { data: 'marker' });
    await y;
    expect(xs).toEqual(['before']);
    const status = next<BridgeStatus>((ok) => c.onStatus(ok));
    c.publish('/not/advertised', { data: '' });
    expect(await status).toMatchObject({ level: 'error' });
  });

  it('closes every client when it closes', async () => {
    const { server, client } = await setUp();
    const c = await client();
    await server.close();
    expect((await c.closed).code).toBe(1001);
    await server.close(); // a second close is harmless
  });

  it('gives up connecting after its timeout with the reason', async () => {
    const { server, url } = await setUp();
    await server.close();
    await expect(BridgeClient.connect(url, { timeoutMs: 300, retryDelayMs: 100 })).rejects.toThrow(`cannot connect to ${url}`);
  });
});
