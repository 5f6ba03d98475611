import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BridgeServer } from '../../../../src/runtime/rosbridge/bridge-server.js';

let server: BridgeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const connect = (port: number) =>
  new Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    const closed = new Promise<{ code: number; reason: string }>((done) =>
      ws.on('close', (code, reason) => done({ code, reason: reason.toString() })),
    );
    ws.once('open', () => resolve({ ws, closed }));
    ws.once('error', reject);
  });

describe('a bridge server for one client (an external device speaks alone for its car)', () => {
  it('refuses a second client while the first is connected, logs it, and tells who connected and went', async () => {
    const log: string[] = [];
    const seen: string[] = [];
    server = await BridgeServer.listen({ host: '127.0.0.1', port: 0, oneClient: true, log: (l) => log.push(l) });
    server.onClient = (event, client, code) => seen.push(`${event} ${client.id}${code ? ` ${code}` : ''}`);
    const first = await connect(server.port);
    const second = await connect(server.port);
    expect(await second.closed).toEqual({ code: 1008, reason: 'this link already has its client' });
    expect(server.clientCount).toBe(1);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/^bridge: refused 127\.0\.0\.1:\d+: this link already has its client \(127\.0\.0\.1:\d+\)$/);
    first.ws.close(1000);
    await first.closed;
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual(['connected 1', 'disconnected 1 1000']);
    // The slot is free again.
    const third = await connect(server.port);
    expect(server.clientCount).toBe(1);
    third.ws.close();
  });

  it('lets any number of clients in without the option', async () => {
    server = await BridgeServer.listen({ host: '127.0.0.1', port: 0 });
    const a = await connect(server.port);
    const b = await connect(server.port);
    await new Promise((r) => setTimeout(r, 20));
    expect(server.clientCount).toBe(2);
    a.ws.close();
    b.ws.close();
  });
});
