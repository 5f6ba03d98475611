import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCsvRecords } from '../../../src/util/csv-records.js';
import { countOn, readMcap } from '../../support/mcap-reader.js';

/**
 * run.mcap, read back with the MCAP reader and decoded with Foxglove's ROS 2 CDR reader, against
 * the CSVs of the same run: channels, schemas, message counts, times and values.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'dist/cli/main.js');
const work = mkdtempSync(join(tmpdir(), 'cavsim-mcap-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function cavsim(args: string[]) {
  const r = spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function up(scenario: string, ...extra: string[]): string {
  const r = cavsim(['up', scenario, '--runtime', 'sim', '--runs-dir', join(work, 'runs'), '--json', ...extra]);
  expect(r.code === 0 || r.code === 1, r.stderr).toBe(true);
  return JSON.parse(r.stdout).run_dir as string;
}

function csv(dir: string, name: string): Record<string, string>[] {
  const [header, ...rows] = readCsvRecords(readFileSync(join(dir, name), 'utf8')).map((r) => r.cells);
  return rows.map((row) => Object.fromEntries(header.map((h, i) => [h, row[i]])));
}

const count = countOn;
const ns = (seconds: string) => BigInt(Math.round(Number(seconds) * 1e9));

describe('run.mcap (simulated runtime)', () => {
  it('holds the head-on run as ROS 2 messages in virtual time, one for each CSV row', async () => {
    const dir = up('scenarios/head-on-brake.yaml', '--set', 'network.delay=300ms');
    const { header, channels: read, messages } = await readMcap(join(dir, 'run.mcap'));
    expect(header.profile).toBe('ros2');
    expect(read.every((c) => c.schemaEncoding === 'ros2msg' && c.messageEncoding === 'cdr')).toBe(true);
    const channels = read.map((c) => [c.topic, c.schema]);
    expect(channels).toEqual(
      expect.arrayContaining([
        ['/clock', 'rosgraph_msgs/msg/Clock'],
        ['/tf', 'tf2_msgs/msg/TFMessage'],
        ['/map', 'nav_msgs/msg/OccupancyGrid'],
        ['/car0/odom', 'nav_msgs/msg/Odometry'],
        ['/car1/drive', 'ackermann_msgs/msg/AckermannDriveStamped'],
        ['/v2v/sent', 'cavsim_msgs/msg/V2VFrame'],
        ['/collisions', 'cavsim_msgs/msg/Collision'],
        ['/events', 'cavsim_msgs/msg/RunEvent'],
      ]),
    );
    const vehicles = csv(dir, 'vehicles.csv');
    const car0 = vehicles.filter((r) => r.vehicle === 'car0');
    expect(count(messages, '/car0/odom')).toBe(car0.length);
    expect(count(messages, '/car1/drive')).toBe(vehicles.length - car0.length);
    expect(count(messages, '/tf')).toBe(new Set(vehicles.map((r) => r.t_s)).size);
    expect(messages.find((m) => m.topic === '/tf')!.message.transforms).toHaveLength(2);
    expect(count(messages, '/clock')).toBe(new Set(vehicles.map((r) => r.t_s)).size);
    expect(count(messages, '/map')).toBe(1);

    const odom = messages.filter((m) => m.topic === '/car0/odom');
    expect(odom[0].logTime).toBe(0n);
    expect(odom.at(-1)!.logTime).toBe(ns(car0.at(-1)!.t_s));
    const mid = Math.floor(car0.length / 2);
    const pose = (odom[mid].message.pose as { pose: { position: { x: number; y: number } } }).pose.position;
    expect(pose.x).toBeCloseTo(Number(car0[mid].x_m), 9);
    expect(pose.y).toBeCloseTo(Number(car0[mid].y_m), 9);
    expect((odom[mid].message.header as { frame_id: string }).frame_id).toBe('map');
    expect(odom[mid].message.child_frame_id).toBe('car0/base_link');

    const collisions = csv(dir, 'collisions.csv');
    expect(collisions.length).toBeGreaterThan(0);
    const collision = messages.find((m) => m.topic === '/collisions')!;
    expect(collision.logTime).toBe(ns(collisions[0].t_s));
    expect(collision.message).toMatchObject({ a: collisions[0].a, b: collisions[0].b });
    expect(count(messages, '/events')).toBe(csv(dir, 'events.csv').length);

    const v2v = csv(dir, 'v2v.csv');
    expect(count(messages, '/v2v/sent')).toBe(new Set(v2v.map((r) => r.id)).size);
    expect(count(messages, '/v2v/received')).toBe(v2v.filter((r) => r.outcome === 'delivered').length);
    expect(count(messages, '/v2v/lost')).toBe(v2v.filter((r) => r.outcome !== 'delivered').length);
    const received = messages.find((m) => m.topic === '/v2v/received')!;
    const row = v2v.find((r) => r.outcome === 'delivered')!;
    expect(received.logTime).toBe(ns(row.received_s));
    expect(received.message).toMatchObject({ id: row.id, sender: row.from, receiver: row.to, size_bytes: Number(row.size_bytes) });

    const times = messages.map((m) => m.logTime);
    expect(times).toEqual([...times].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('carries each recorded lidar scan as a LaserScan in the car frame', async () => {
    const dir = up('scenarios/loop-gap-follow.yaml', '--set', 'record.scans=true', '--set', 'duration=3s');
    const { messages } = await readMcap(join(dir, 'run.mcap'));
    const scans = csv(dir, 'scans.csv');
    const car = scans[0].vehicle;
    const mine = scans.filter((r) => r.vehicle === car);
    const recorded = messages.filter((m) => m.topic === `/${car}/scan`);
    expect(recorded.length).toBe(mine.length);
    const last = recorded.at(-1)!;
    expect(last.logTime).toBe(ns(mine.at(-1)!.t_s));
    const ranges = Array.from(last.message.ranges as Float32Array);
    expect(ranges).toEqual(
      mine
        .at(-1)!
        .ranges.split(';')
        .map((r) => Math.fround(Number(r))),
    );
    expect((last.message.header as { frame_id: string }).frame_id).toBe(`${car}/base_link`);
  });

  it('is recorded as the run goes with the messages `cavsim mcap` makes from the CSVs; left out with record.mcap=false', async () => {
    const withIt = up('scenarios/head-on-brake.yaml', '--run-id', 'with-mcap');
    const without = up('scenarios/head-on-brake.yaml', '--set', 'record.mcap=false', '--run-id', 'with-mcap-later');
    expect(existsSync(join(without, 'run.mcap'))).toBe(false);
    const r = cavsim(['mcap', without, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ file: join(without, 'run.mcap'), messages: expect.any(Number), channels: 12 });
    const a = await readMcap(join(withIt, 'run.mcap'));
    const b = await readMcap(join(without, 'run.mcap'));
    // messages of one time may come in another order; everything else is the same, to the byte
    const key = (m: { topic: string; logTime: bigint; message: unknown }) =>
      `${String(m.logTime).padStart(20, '0')} ${m.topic} ${JSON.stringify(m.message)}`;
    expect(b.messages.length).toBe(a.messages.length);
    expect(b.messages.map(key).sort()).toEqual(a.messages.map(key).sort());
    expect(b.channels.map((c) => [c.topic, c.schema])).toEqual(a.channels.map((c) => [c.topic, c.schema]));
  });

  it("is left out of a sweep's runs unless the scenario asks for it", () => {
    const sweep = (...extra: string[]) => {
      const r = cavsim(['sweep', 'scenarios/head-on-brake.yaml', '--delay', '10ms,20ms', '--sweeps-dir', join(work, 'sweeps'), ...extra]);
      expect(r.code, r.stderr).toBe(0);
      const dir = /→ (\S+)/.exec(r.stdout + r.stderr)![1];
      const runs = readdirSync(join(dir, 'runs'));
      expect(runs).toHaveLength(2);
      return runs.filter((run) => existsSync(join(dir, 'runs', run, 'run.mcap'))).length;
    };
    expect(sweep()).toBe(0);
    expect(sweep('--set', 'record.mcap=true')).toBe(2);
  });

  it('a run killed with SIGKILL keeps its CSVs: `cavsim mcap` makes a whole run.mcap of them, however many messages (over 100,000)', async () => {
    const runsDir = join(work, 'killed');
    const child = spawn(
      'node',
      [
        CLI,
        'up',
        'scenarios/platoon-cacc.yaml',
        '--runtime',
        'sim',
        '--set',
        'duration=3600s',
        '--runs-dir',
        runsDir,
        '--run-id',
        'killed',
      ],
      { cwd: ROOT, stdio: 'ignore' },
    );
    const dir = join(runsDir, 'killed');
    // 6 cars: 14 messages a step, so 10,000 steps are 140,000 messages
    const rows = () => (existsSync(join(dir, 'vehicles.csv')) ? statSync(join(dir, 'vehicles.csv')).size / 60 : 0);
    for (let waited = 0; rows() < 6 * 10_000 && waited < 120_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(existsSync(join(dir, 'summary.json'))).toBe(false);
    const summary = cavsim(['summary', dir]);
    expect(summary.code).toBe(2);
    expect(summary.stderr).toMatch(/the run did not finish[\s\S]*vehicles.csv up to t=\d+/);
    const r = cavsim(['mcap', dir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const made = JSON.parse(r.stdout) as { messages: number };
    expect(made.messages).toBeGreaterThan(100_000);
    const { messages } = await readMcap(join(dir, 'run.mcap'));
    expect(messages.length).toBe(made.messages);
    expect(count(messages, '/car5/odom')).toBe(csv(dir, 'vehicles.csv').filter((row) => row.vehicle === 'car5').length);
  }, 300_000);

  it('refuses a folder that is not a run with exit status 2', () => {
    const r = cavsim(['mcap', join(work, 'nothing-here')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no such run folder/);
  });
});
