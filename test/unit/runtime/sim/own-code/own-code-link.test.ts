import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Odometry } from '../../../../../src/core/control/vehicle-context.js';
import type { V2VReceivedData } from '../../../../../src/runtime/rosbridge/control-topics.js';
import { OwnCodeLink, type TickInput } from '../../../../../src/runtime/sim/own-code/own-code-link.js';
import type { ResolvedVehicle } from '../../../../../src/scenario/resolved.js';

type Frame = { op: string; topic?: string; msg?: Record<string, unknown>; level?: string; id?: string };

/** A rosbridge client speaking JSON over `ws`, recording every frame it gets. */
class Client {
  readonly frames: Frame[] = [];
  private syncs = 0;
  private waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const f = JSON.parse(data.toString()) as Frame;
      this.frames.push(f);
      this.waiters = this.waiters.filter((w) => (w.pred(f) ? (w.resolve(f), false) : true));
    });
  }

  static connect(url: string): Promise<Client> {
    const ws = new WebSocket(url);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Client(ws)));
      ws.once('error', reject);
    });
  }

  send(op: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(op));
  }

  advertise(topic: string, type: string): void {
    this.send({ op: 'advertise', topic, type });
  }

  subscribe(topic: string, type?: string): void {
    this.send({ op: 'subscribe', topic, ...(type ? { type } : {}) });
  }

  publish(topic: string, msg: Record<string, unknown>): void {
    this.send({ op: 'publish', topic, msg });
  }

  /** The next frame (already received or to come) matching `pred`, failing after `ms`. */
  next(pred: (f: Frame) => boolean, ms = 2000): Promise<Frame> {
    const seen = this.frames.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for a frame')), ms);
      this.waiters.push({
        pred,
        resolve: (f) => {
          clearTimeout(timer);
          resolve(f);
        },
      });
    });
  }

  /** Resolves once the server has handled every op sent so far (it answers ops in order; this one with a warning). */
  async sync(): Promise<void> {
    const id = `sync-${++this.syncs}`;
    this.send({ op: 'unadvertise', topic: '/cavsim_test_sync', id });
    await this.next((f) => f.op === 'status' && f.id === id);
  }

  published(topic: string): Frame[] {
    return this.frames.filter((f) => f.op === 'publish' && f.topic === topic);
  }

  close(): void {
    this.ws.close();
  }
}

const DRIVE = 'ackermann_msgs/msg/AckermannDriveStamped';
const STRING = 'std_msgs/msg/String';

const spec = {
  name: 'car0',
  observes: ['car1'],
  lidar: undefined,
  index: 0,
  controlRate: 100,
  apps: [],
  command: ['x'],
} as unknown as ResolvedVehicle;
const odom: Odometry = { t: 0.03, x: 1, y: 2, yaw: 0.5, v: 3, steer: 0.1, yawRate: 0.2 };
const odom2: Odometry = { t: 0.03, x: 10, y: -2, yaw: Math.PI, v: 4, steer: 0, yawRate: 0 };
const received: V2VReceivedData = { id: 'car1-1', from: 'car1', to: 'car0', type: 'x', body: {}, sent_s: 0.01, received_s: 0.02 };
const input = (step: number, stampNs: bigint, extra: Partial<TickInput> = {}): TickInput => ({
  step,
  stampNs,
  own: odom,
  observed: new Map([['car1', odom2]]),
  received: [],
  ...extra,
});
const drive = (sec: number, nanosec: number, speed: number, steer = 0) => ({
  header: { stamp: { sec, nanosec }, frame_id: 'car0/base_link' },
  drive: { speed, steering_angle: steer, steering_angle_velocity: 0, acceleration: 0, jerk: 0 },
});

let link: OwnCodeLink | undefined;
let client: Client | undefined;

afterEach(async () => {
  client?.close();
  client = undefined;
  await link?.close();
  link = undefined;
});

/** Opens a link and a client that has advertised and subscribed as own code would, and said it is ready. */
async function readyPair(): Promise<{ link: OwnCodeLink; client: Client }> {
  link = await OwnCodeLink.open(spec, 10);
  client = await Client.connect(link.url);
  client.advertise('/car0/drive', DRIVE);
  client.advertise('/cavsim/ready', STRING);
  client.advertise('/car0/v2v/send', STRING);
  client.advertise('/cavsim/events', STRING);
  for (const topic of ['/sim_control', '/clock', '/car0/odom', '/car1/odom', '/car0/v2v/received', '/cavsim/status'])
    client.subscribe(topic);
  client.publish('/cavsim/ready', { data: JSON.stringify({ vehicle: 'car0' }) });
  await link.whenReady();
  return { link, client };
}

const settles = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p.then(() => 'resolved' as const), new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);

describe('OwnCodeLink', () => {
  it('listens on loopback', async () => {
    link = await OwnCodeLink.open(spec, 10);
    expect(link.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
  });

  it('resolves whenReady once the code reports ready, and again at once afterwards', async () => {
    const { link, client } = await readyPair();
    await expect(link.whenReady()).resolves.toBeUndefined();
    // No error status for any of the client's ops.
    expect(client.frames.filter((f) => f.op === 'status')).toEqual([]);
  });

  it('replays the latched waiting status to a new subscriber', async () => {
    const { client } = await readyPair();
    const status = await client.next((f) => f.op === 'publish' && f.topic === '/cavsim/status');
    const data = JSON.parse(String(status.msg!.data));
    expect(data).toMatchObject({ protocol: 'cavsim.control/1', phase: 'waiting', vehicles: ['car0'], duration_s: 10 });
  });

  it('start() publishes a start command in sim clock', async () => {
    const { link, client } = await readyPair();
    link.start();
    const f = await client.next((x) => x.op === 'publish' && x.topic === '/sim_control');
    expect(JSON.parse(String(f.msg!.data))).toEqual({ cmd: 'start', t0_epoch_ns: '0', clock: 'sim' });
    const status = await client.next(
      (x) => x.op === 'publish' && x.topic === '/cavsim/status' && JSON.parse(String(x.msg!.data)).phase === 'running',
    );
    expect(JSON.parse(String(status.msg!.data)).ready).toEqual(['car0']);
  });

  it('publishes a tick (clock, V2V arrivals, others’ odometry, then its own) and resolves with the answer', async () => {
    const { link, client } = await readyPair();
    link.start();
    const tick = link.tick(input(3, 30_000_000n, { received: [received] }));
    await client.next((f) => f.topic === '/car0/odom');
    const tickTopics = client.frames
      .filter((f) => f.op === 'publish' && ['/clock', '/car0/v2v/received', '/car1/odom', '/car0/odom'].includes(f.topic!))
      .map((f) => f.topic);
    expect(tickTopics).toEqual(['/clock', '/car0/v2v/received', '/car1/odom', '/car0/odom']);

    expect(client.published('/clock')[0].msg).toEqual({ clock: { sec: 0, nanosec: 30_000_000 } });
    expect(JSON.parse(String(client.published('/car0/v2v/received')[0].msg!.data))).toEqual(received);
    const own = client.published('/car0/odom')[0].msg as any;
    expect(own.header.stamp).toEqual({ sec: 0, nanosec: 30_000_000 });
    expect(own.pose.pose.position).toMatchObject({ x: 1, y: 2 });
    expect(own.twist.twist.linear.x).toBe(3);
    const other = client.published('/car1/odom')[0].msg as any;
    expect(other.child_frame_id).toBe('car1/base_link');
    expect(other.pose.pose.position).toMatchObject({ x: 10, y: -2 });

    client.publish('/car0/v2v/send', { data: JSON.stringify({ to: 'car1', type: 'brake', body: { a: 1 } }) });
    client.publish('/cavsim/events', { data: JSON.stringify({ vehicle: 'car0', t_s: 0.03, event: 'brake-sent' }) });
    client.publish('/car0/drive', drive(0, 30_000_000, 1.5, 0.25));
    const answer = await tick;
    expect(answer.command).toEqual({ speed: 1.5, steer: 0.25 });
    expect(answer.sends).toEqual([{ to: 'car1', type: 'brake', body: { a: 1 } }]);
    expect(answer.events).toEqual([{ vehicle: 'car0', t_s: 0.03, event: 'brake-sent' }]);
    expect(answer.wallS).toBeGreaterThanOrEqual(0);
    expect(answer.cpuS).toBeUndefined();
    expect(client.frames.filter((f) => f.op === 'status')).toEqual([]);
  });

  it('fills in defaults of a send request and starts each tick with no sends or events', async () => {
    const { link, client } = await readyPair();
    const t1 = link.tick(input(1, 10_000_000n));
    await client.next((f) => f.topic === '/car0/odom');
    client.publish('/car0/v2v/send', { data: JSON.stringify({ to: '*' }) });
    client.publish('/car0/drive', drive(0, 10_000_000, 1));
    expect((await t1).sends).toEqual([{ to: '*', type: 'data', body: {} }]);
    const t2 = link.tick(input(2, 20_000_000n));
    client.publish('/car0/drive', drive(0, 20_000_000, 2));
    const a2 = await t2;
    expect(a2.command.speed).toBe(2);
    expect(a2.sends).toEqual([]);
    expect(a2.events).toEqual([]);
  });

  it('does not take a drive stamped before the tick as its answer', async () => {
    const { link, client } = await readyPair();
    const tick = link.tick(input(3, 30_000_000n));
    await client.next((f) => f.topic === '/car0/odom');
    client.publish('/car0/drive', drive(0, 20_000_000, 9));
    await client.sync();
    expect(await settles(tick, 20)).toBe('pending');
    client.publish('/car0/drive', drive(0, 30_000_000, 2));
    expect((await tick).command).toEqual({ speed: 2, steer: 0 });
  });

  it('takes an unstamped drive as the answer, and refuses one stamped for a tick not yet sent or with a stamp that is no time', async () => {
    const { link, client } = await readyPair();
    const t1 = link.tick(input(1, 10_000_000n));
    client.publish('/car0/drive', { drive: { speed: 4 } });
    expect((await t1).command).toEqual({ speed: 4, steer: 0 });
    const t2 = link.tick(input(2, 20_000_000n));
    await client.next((f) => f.topic === '/car0/odom');
    const bad = [
      { sec: 2 ** 53 + 1, nanosec: 0 },
      { sec: 1e12, nanosec: 0 },
      { sec: 0, nanosec: 20_000_001 },
      'yesterday',
      null,
      { sec: 0, nanosec: 0.5 },
    ];
    for (const stamp of bad) client.publish('/car0/drive', { header: { stamp, frame_id: 'car0' }, drive: { speed: 9, steering_angle: 0 } });
    await client.sync();
    const errors = client.frames.filter((f) => f.op === 'status' && String(f.msg).startsWith('publish /car0/drive: header'));
    expect(errors).toHaveLength(bad.length);
    expect(await settles(t2, 20)).toBe('pending');
    client.publish('/car0/drive', drive(0, 20_000_000, 5));
    expect((await t2).command).toEqual({ speed: 5, steer: 0 });
    expect(link.takeRefusals()).toEqual([
      expect.objectContaining({ reason: 'drive-stamp', count: bad.length, detail: expect.objectContaining({ topic: '/car0/drive' }) }),
    ]);
    expect(link.takeRefusals()).toEqual([]);
  });

  it('ignores a drive outside any tick', async () => {
    const { link, client } = await readyPair();
    client.publish('/car0/drive', drive(0, 10_000_000, 7));
    await client.sync();
    const tick = link.tick(input(1, 10_000_000n));
    await client.sync();
    expect(await settles(tick, 20)).toBe('pending');
    client.publish('/car0/drive', drive(0, 10_000_000, 8));
    expect((await tick).command.speed).toBe(8);
  });

  it('reports the CPU time a tick took where the clock reads it', async () => {
    const { link, client } = await readyPair();
    const readings = [1.25, 1.75];
    link.cpuSeconds = () => readings.shift();
    const tick = link.tick(input(1, 10_000_000n));
    client.publish('/car0/drive', drive(0, 10_000_000, 1));
    expect((await tick).cpuS).toBeCloseTo(0.5, 12);
  });

  it('fail() rejects a pending tick, later ticks, and a pending whenReady', async () => {
    const { link, client } = await readyPair();
    const tick = link.tick(input(3, 30_000_000n));
    const err = new Error('x');
    link.fail(err);
    await expect(tick).rejects.toBe(err);
    await expect(link.tick(input(4, 40_000_000n))).rejects.toBe(err);
    // A late answer is handled without an error and changes nothing.
    client.publish('/car0/drive', drive(0, 30_000_000, 1));
    await client.sync();
    expect(client.frames.filter((f) => f.op === 'status' && f.level === 'error')).toEqual([]);
    await expect(link.tick(input(5, 50_000_000n))).rejects.toBe(err);
    // Ready was reported before the failure: whenReady still resolves.
    await expect(link.whenReady()).resolves.toBeUndefined();
  });

  it('fail() before ready rejects whenReady', async () => {
    link = await OwnCodeLink.open(spec, 10);
    const ready = link.whenReady();
    link.fail(new Error('died'));
    await expect(ready).rejects.toThrow('died');
    await expect(link.whenReady()).rejects.toThrow('died');
  });

  it('answers a subscription to another car’s scan with an error status', async () => {
    const { client } = await readyPair();
    client.send({ op: 'subscribe', topic: '/car1/scan', id: 's1' });
    const status = await client.next((f) => f.op === 'status');
    expect(status.level).toBe('error');
    expect(status.id).toBe('s1');
    expect(status.msg).toContain('car0 may not subscribe to /car1/scan');
  });

  it('answers a publish on another car’s drive with an error status, and it does not answer a tick', async () => {
    const { link, client } = await readyPair();
    const tick = link.tick(input(1, 10_000_000n));
    client.advertise('/car1/drive', DRIVE);
    client.publish('/car1/drive', drive(0, 10_000_000, 3));
    const status = await client.next((f) => f.op === 'status');
    expect(status.level).toBe('error');
    expect(status.msg).toContain('car0 may not publish /car1/drive');
    await client.sync();
    expect(await settles(tick, 20)).toBe('pending');
    client.publish('/car0/drive', drive(0, 10_000_000, 1));
    expect((await tick).command.speed).toBe(1);
  });

  it('answers a malformed send request with an error status and leaves it out of the tick', async () => {
    const { link, client } = await readyPair();
    const tick = link.tick(input(1, 10_000_000n));
    client.publish('/car0/v2v/send', { data: JSON.stringify({ type: 'no-recipient' }) });
    const status = await client.next((f) => f.op === 'status');
    expect(status.level).toBe('error');
    expect(status.msg).toContain('/car0/v2v/send');
    client.publish('/car0/drive', drive(0, 10_000_000, 1));
    expect((await tick).sends).toEqual([]);
  });

  it('publishes the scan of a car with a lidar after V2V arrivals and before odometry', async () => {
    link = await OwnCodeLink.open(
      { ...spec, lidar: { rate: 10, beams: 3, fov: 1, rangeMax: 30, noiseStd: 0, seed: 1 } } as ResolvedVehicle,
      10,
    );
    client = await Client.connect(link.url);
    for (const topic of ['/clock', '/car0/scan', '/car0/odom', '/car1/odom', '/car0/v2v/received']) client.subscribe(topic);
    await client.sync();
    const scan = { t: 0.03, angleMin: -0.5, angleIncrement: 0.5, rangeMax: 30, ranges: new Float32Array([1, 2.5, Infinity]) };
    void link.tick(input(3, 30_000_000n, { scan, received: [received] })).catch(() => {});
    await client.next((f) => f.topic === '/car0/odom');
    const topics = client.frames.filter((f) => f.op === 'publish').map((f) => f.topic);
    expect(topics).toEqual(['/clock', '/car0/v2v/received', '/car0/scan', '/car1/odom', '/car0/odom']);
    const msg = client.published('/car0/scan')[0].msg as any;
    expect(msg.header).toEqual({ stamp: { sec: 0, nanosec: 30_000_000 }, frame_id: 'car0/base_link' });
    expect(msg.ranges).toEqual([1, 2.5, null]);
    expect(msg.scan_time).toBeCloseTo(0.1, 12);
    link.fail(new Error('done'));
  });

  it('does not publish a scan for a car without a lidar', async () => {
    const { link, client } = await readyPair();
    client.subscribe('/car0/scan');
    await client.sync();
    const scan = { t: 0.03, angleMin: 0, angleIncrement: 0.1, rangeMax: 30, ranges: new Float32Array([1]) };
    const tick = link.tick(input(3, 30_000_000n, { scan }));
    await client.next((f) => f.topic === '/car0/odom');
    expect(client.published('/car0/scan')).toEqual([]);
    client.publish('/car0/drive', drive(0, 30_000_000, 1));
    await tick;
  });

  it('publishes a collision report and a stop command', async () => {
    const { link, client } = await readyPair();
    client.subscribe('/car0/collision');
    await client.sync();
    link.collided({ vehicle: 'car0', step: 5, t_s: 0.05, with: ['wall'], speed_mps: 2 });
    const c = await client.next((f) => f.topic === '/car0/collision');
    expect(JSON.parse(String(c.msg!.data))).toMatchObject({ vehicle: 'car0', with: ['wall'] });
    link.stop('duration', 10);
    const s = await client.next((f) => f.topic === '/sim_control');
    expect(JSON.parse(String(s.msg!.data))).toEqual({ cmd: 'stop', reason: 'duration' });
  });
});
