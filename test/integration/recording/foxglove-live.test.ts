import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg2-serialization';
import foxglove from '@foxglove/ws-protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { readCsvRecords } from '../../../src/util/csv-records.js';

/** A Foxglove WebSocket client connected to a live `cavsim up --foxglove` run, as Foxglove itself connects. */
const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'dist/cli/main.js');
const work = mkdtempSync(join(tmpdir(), 'cavsim-foxglove-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Received {
  topic: string;
  timestamp: bigint;
  message: Record<string, unknown>;
}

describe('cavsim up --foxglove', () => {
  it('serves odometry, transforms and the map live, in real time, with the values the run writes to its CSVs', async () => {
    const runsDir = join(work, 'runs');
    const child = spawn(
      'node',
      [CLI, 'up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim', '--foxglove', '0', '--runs-dir', runsDir, '--run-id', 'live'],
      {
        cwd: ROOT,
        env: { ...process.env, CI: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    const url = await new Promise<string>((resolveUrl, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /foxglove: (ws:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (m) resolveUrl(m[1]);
      });
      child.once('exit', () => reject(new Error(`cavsim exited before serving: ${stderr}`)));
    });
    const connectedAt = Date.now();
    const client = new foxglove.FoxgloveClient({ ws: new WebSocket(url, [foxglove.FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
    const bySubscription = new Map<number, { topic: string; reader: MessageReader }>();
    const received: Received[] = [];
    let serverTime = 0n;
    client.on('advertise', (channels) => {
      for (const c of channels) {
        if (!['/car0/odom', '/tf', '/map'].includes(c.topic)) continue;
        expect(c).toMatchObject({ encoding: 'cdr', schemaEncoding: 'ros2msg' });
        bySubscription.set(client.subscribe(c.id), { topic: c.topic, reader: new MessageReader(parse(c.schema, { ros2: true })) });
      }
    });
    client.on('time', ({ timestamp }) => (serverTime = timestamp));
    client.on('message', ({ subscriptionId, timestamp, data }) => {
      const s = bySubscription.get(subscriptionId)!;
      received.push({ topic: s.topic, timestamp, message: s.reader.readMessage(data) });
    });
    const ended = new Promise<void>((r) => {
      const check = () => (/the run is over/.test(stderr) ? r() : setTimeout(check, 50));
      check();
    });
    await ended;
    const watchedFor = Date.now() - connectedAt;
    // everything was sent before the line above; let the socket deliver it
    const lastRow = () => readCsvRecords(readFileSync(join(runsDir, 'live', 'vehicles.csv'), 'utf8')).at(-1)!.cells[0];
    const lastTime = BigInt(Math.round(Number(lastRow()) * 1e9));
    for (let waited = 0; serverTime !== lastTime && waited < 3000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    client.close();
    const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGINT');
    expect(await exit).toBe(0);

    // 5 s of virtual time kept to the wall clock, so a viewer sees the cars move
    expect(watchedFor).toBeGreaterThan(4000);
    expect(received.filter((m) => m.topic === '/map')).toHaveLength(1);
    const odom = received.filter((m) => m.topic === '/car0/odom');
    const rows = readCsvRecords(readFileSync(join(runsDir, 'live', 'vehicles.csv'), 'utf8'))
      .map((r) => r.cells)
      .filter((c) => c[1] === 'car0');
    expect(odom.length).toBeGreaterThan(rows.length / 2);
    expect(odom.at(-1)!.timestamp).toBe(BigInt(Math.round(Number(rows.at(-1)![0]) * 1e9)));
    for (const m of odom.filter((_, i) => i % 50 === 0)) {
      const row = rows.find((r) => BigInt(Math.round(Number(r[0]) * 1e9)) === m.timestamp)!;
      const p = (m.message.pose as { pose: { position: { x: number; y: number } } }).pose.position;
      expect([p.x, p.y]).toEqual([Number(row[2]), Number(row[3])]);
    }
    expect(received.some((m) => m.topic === '/tf')).toBe(true);
    expect(serverTime).toBe(odom.at(-1)!.timestamp);
  }, 60_000);

  it('refuses a port that is not one, with exit status 2, before running anything', () => {
    const r = spawnSync(
      'node',
      [CLI, 'up', 'scenarios/head-on-brake.yaml', '--runtime', 'sim', '--foxglove', 'eighty', '--runs-dir', join(work, 'bad')],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--foxglove: "eighty" is not a port/);
  });
});
