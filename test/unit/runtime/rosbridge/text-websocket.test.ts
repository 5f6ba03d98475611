import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { TextWebSocket } from '../../../../src/runtime/rosbridge/text-websocket.js';

/** The `ws` package's server plays the rosbridge server: the client must speak plain RFC 6455 to it. */
let server: WebSocketServer | undefined;
let raw: Server | undefined;

afterEach(async () => {
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
  await new Promise<void>((ok) => (raw ? raw.close(() => ok()) : ok()));
  server = raw = undefined;
});

async function serve(onConnection: (peer: WebSocket) => void): Promise<string> {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  server.on('connection', onConnection);
  await new Promise<void>((ok) => server!.once('listening', () => ok()));
  const { port } = server.address() as { port: number };
  return `ws://127.0.0.1:${port}/`;
}

const nextMessage = (socket: TextWebSocket) => new Promise<string>((ok) => socket.on('message', ok));
const closeOf = (socket: TextWebSocket) => new Promise<[number, string]>((ok) => socket.on('close', (code, reason) => ok([code, reason])));

describe('TextWebSocket', () => {
  it('exchanges text both ways, masked as a client must', async () => {
    const url = await serve((peer) => peer.on('message', (data, binary) => peer.send(`echo:${data.toString()}:${binary}`)));
    const socket = await TextWebSocket.open(url);
    const reply = nextMessage(socket);
    socket.send('{"op":"publish","topic":"/car0/drive"}');
    expect(await reply).toBe('echo:{"op":"publish","topic":"/car0/drive"}:false');
    socket.terminate();
  });

  it('carries messages of every length encoding (7-bit, 16-bit, 64-bit) and non-ASCII text', async () => {
    const url = await serve((peer) => peer.on('message', (data) => peer.send(data.toString())));
    const socket = await TextWebSocket.open(url);
    const got: string[] = [];
    socket.on('message', (text) => got.push(text));
    const sent = ['x'.repeat(125), 'y'.repeat(126), 'z'.repeat(70_000), 'Δt = 10 ms, 車'];
    for (const text of sent) socket.send(text);
    await expect.poll(() => got.length).toBe(sent.length);
    expect(got).toEqual(sent);
    socket.terminate();
  });

  it('joins a fragmented message, delivers binary as text and answers pings', async () => {
    let pongs = 0;
    const url = await serve((peer) => {
      peer.on('pong', () => pongs++);
      peer.send('frag', { fin: false });
      peer.send('mented', { fin: true });
      peer.send(Buffer.from('binary text'), { binary: true });
      peer.ping('are you there');
    });
    const socket = await TextWebSocket.open(url);
    const got: string[] = [];
    socket.on('message', (text) => got.push(text));
    await expect.poll(() => got.length).toBe(2);
    expect(got).toEqual(['fragmented', 'binary text']);
    await expect.poll(() => pongs).toBe(1);
    socket.terminate();
  });

  it('gives the server close code and reason, and answers the closing handshake', async () => {
    let peerClosed: number | undefined;
    const url = await serve((peer) => {
      peer.on('close', (code) => (peerClosed = code));
      peer.close(4001, 'run over');
    });
    const socket = await TextWebSocket.open(url);
    expect(await closeOf(socket)).toEqual([4001, 'run over']);
    expect(socket.readyState).toBe('closed');
    await expect.poll(() => peerClosed).toBe(4001);
  });

  it('closes cleanly when the client closes first', async () => {
    let peerClosed: number | undefined;
    const url = await serve((peer) => peer.on('close', (code) => (peerClosed = code)));
    const socket = await TextWebSocket.open(url);
    const closed = closeOf(socket);
    socket.close(1000);
    socket.send('after close: dropped');
    expect((await closed)[0]).toBe(1000);
    await expect.poll(() => peerClosed).toBe(1000);
  });

  it('reports a dropped connection as 1006', async () => {
    const url = await serve((peer) => setTimeout(() => peer.terminate(), 10));
    const socket = await TextWebSocket.open(url);
    expect((await closeOf(socket))[0]).toBe(1006);
  });

  it('rejects a server that does not upgrade, or answers with the wrong key', async () => {
    for (const answer of [
      'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: bm90IGl0\r\n\r\n',
    ]) {
      raw = createServer((s) => s.once('data', () => s.end(answer)));
      await new Promise<void>((ok) => raw!.listen(0, '127.0.0.1', () => ok()));
      const { port } = raw.address() as { port: number };
      await expect(TextWebSocket.open(`ws://127.0.0.1:${port}/`)).rejects.toThrow(/handshake answered/);
      await new Promise<void>((ok) => raw!.close(() => ok()));
      raw = undefined;
    }
  });

  it('refuses connection failures and other schemes', async () => {
    raw = createServer();
    await new Promise<void>((ok) => raw!.listen(0, '127.0.0.1', () => ok()));
    const { port } = raw.address() as { port: number };
    await new Promise<void>((ok) => raw!.close(() => ok()));
    raw = undefined;
    await expect(TextWebSocket.open(`ws://127.0.0.1:${port}/`)).rejects.toThrow();
    await expect(TextWebSocket.open('wss://127.0.0.1:1/')).rejects.toThrow(/only ws:/);
  });

  it('drops a server that masks its frames (protocol error)', async () => {
    raw = createServer((s) =>
      s.once('data', (req) => {
        const key = /Sec-WebSocket-Key: (\S+)/.exec(req.toString())![1];
        const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
        s.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
        s.write(Buffer.from([0x81, 0x82, 1, 2, 3, 4, 0x69 ^ 1, 0x69 ^ 2]));
      }),
    );
    await new Promise<void>((ok) => raw!.listen(0, '127.0.0.1', () => ok()));
    const { port } = raw.address() as { port: number };
    const socket = await TextWebSocket.open(`ws://127.0.0.1:${port}/`);
    const got: string[] = [];
    socket.on('message', (text) => got.push(text));
    expect((await closeOf(socket))[0]).toBe(1002);
    expect(got).toEqual([]);
  });
});
