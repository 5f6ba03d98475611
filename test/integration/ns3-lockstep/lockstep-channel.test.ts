import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CsmaBus } from '../../../src/channel/builtin/csma-bus.js';
import { LatencyChannel } from '../../../src/channel/builtin/latency-channel.js';
import { type ChannelFrame, type Delivery, FRAME_OVERHEAD_BYTES, type V2VChannel } from '../../../src/channel/frames.js';
import { builtinChannelScript, compileChannelProgram } from '../../../src/channel/ns3/compile.js';
import { LOCKSTEP_NS3_MODULES, LOCKSTEP_WIRED_MODULES } from '../../../src/channel/ns3/engine-choice.js';
import { lockstepArgv } from '../../../src/channel/ns3/lockstep/lockstep-argv.js';
import { LockstepChannel, type NodeMotion } from '../../../src/channel/ns3/lockstep/lockstep-channel.js';
import { writeObstacleGrid } from '../../../src/channel/ns3/lockstep/obstacle-grid-file.js';
import { LockstepProcessPool } from '../../../src/channel/ns3/lockstep/process-pool.js';
import { OccupancyGrid } from '../../../src/core/map/occupancy-grid.js';
import { createCommandRunner } from '../../../src/host/exec/command-runner.js';
import type { ResolvedNetwork } from '../../../src/scenario/resolved.js';
import { wifiNetwork } from '../../support/radio/networks.js';
import { ns3LockstepProblem, requireReal } from '../../support/real-components.js';

const real = requireReal('ns3-lockstep/lockstep-channel.test.ts', ns3LockstepProblem());
const STEP = 0.01;
const scratch = mkdtempSync(join(tmpdir(), 'cavsim-lockstep-'));
let wired = '';
let wifiBinary = '';
const open: LockstepChannel<unknown>[] = [];

/** Runs started by `start` share this pool, as a sweep worker's runs do. */
let pool = new LockstepProcessPool();
const freshPool = () => {
  pool.close();
  pool = new LockstepProcessPool();
};

beforeAll(async () => {
  real.assertPresent();
  const cacheDir = join(tmpdir(), 'cavsim-test-ns3-cache');
  const source = builtinChannelScript('lockstep-channel');
  wired = await compileChannelProgram(source, { runner: createCommandRunner(), modules: LOCKSTEP_WIRED_MODULES, cacheDir });
  wifiBinary = await compileChannelProgram(source, {
    runner: createCommandRunner(),
    modules: LOCKSTEP_NS3_MODULES,
    defines: ['CAVSIM_WIFI'],
    cacheDir,
  });
}, 300_000);
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  pool.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function start<T>(
  network: ResolvedNetwork,
  names: string[],
  extra: { run?: number; motion?: () => readonly NodeMotion[]; obstacleFile?: string } = {},
) {
  const argv = lockstepArgv({
    network,
    nodes: names.length,
    run: extra.run ?? 1,
    ...(extra.obstacleFile ? { obstacleFile: extra.obstacleFile } : {}),
  });
  const binary = network.channel === 'wifi-80211p' ? wifiBinary : wired;
  const channel = await LockstepChannel.start<T>({ binary, argv, names, pool, ...(extra.motion ? { motion: extra.motion } : {}) });
  open.push(channel as LockstepChannel<unknown>);
  return channel;
}

/** Sends each frame at its time, steps both channels in 10 ms steps to `until`, returns every outcome. */
async function drive<T>(channel: V2VChannel<T>, sends: { at: number; frame: ChannelFrame<T> }[], until: number): Promise<Delivery<T>[]> {
  const out: Delivery<T>[] = [];
  const queue = [...sends].sort((a, b) => a.at - b.at);
  for (let k = 0; k * STEP <= until + 1e-9; k++) {
    const now = Math.round(k * STEP * 1e9) / 1e9;
    await channel.advanceTo?.(now);
    out.push(...channel.deliverDue(now));
    while (queue.length && queue[0].at <= now + 1e-12) channel.send(queue.shift()!.frame, now);
  }
  await channel.advanceTo?.(until + 1);
  out.push(...channel.deliverDue(until + 1));
  return out;
}

const frame = (payload: number, from: string, to: string[], sizeBytes: number, broadcast = to.length > 1): ChannelFrame<number> => ({
  payload,
  from,
  to,
  broadcast,
  sizeBytes,
});
const key = (d: Delivery<number>) => `${d.payload}>${d.to}`;

describe.skipIf(real.skip)('ns-3 in lock-step: csma and latency', () => {
  it('delivers at the same virtual times as the builtin models, to 1 us (unicast and broadcast, several sizes and senders)', async () => {
    const names = ['a', 'b', 'c'];
    // csma frames 50 ms apart, so the bus is free for each (ns-3's backoff is random when it is not)
    const csmaSends = [
      frame(1, 'a', ['b'], 130),
      frame(2, 'b', ['a', 'c'], 1000),
      frame(3, 'c', ['a', 'b'], 64),
      frame(4, 'a', ['c'], 1400),
    ].map((f, i) => ({ at: 0.1 + i * 0.05, frame: f }));
    const csma: ResolvedNetwork = { channel: 'csma', delay: 0.02, dataRate: 2e6, loss: 0 };
    const fromNs3 = await drive(await start<number>(csma, names), csmaSends, 1);
    const fromModel = await drive(new CsmaBus<number>({ delay: 0.02, dataRate: 2e6, loss: 0, seed: 1 }), csmaSends, 1);
    expect(fromNs3.map(key).sort()).toEqual(fromModel.map(key).sort());
    const modelAt = new Map(fromModel.map((d) => [key(d), d.at]));
    for (const d of fromNs3) expect(Math.abs(d.at - modelAt.get(key(d))!)).toBeLessThan(1e-6);

    // latency: several senders at the same instant, a queue at one sender
    const latencySends = [
      frame(1, 'a', ['b', 'c'], 1000),
      frame(2, 'a', ['b', 'c'], 1000),
      frame(3, 'b', ['a'], 200),
      frame(4, 'c', ['a', 'b'], 64),
    ].map((f) => ({ at: 0.2, frame: f }));
    const latency: ResolvedNetwork = { channel: 'latency', delay: 0.1, jitter: 0, dataRate: 1e6, loss: 0 };
    const ns3Latency = await drive(await start<number>(latency, names), latencySends, 1);
    const modelLatency = await drive(
      new LatencyChannel<number>({ delay: 0.1, jitter: 0, dataRate: 1e6, loss: 0, seed: 1 }),
      latencySends,
      1,
    );
    expect(ns3Latency).toHaveLength(7);
    const latencyAt = new Map(modelLatency.map((d) => [key(d), d.at]));
    for (const d of ns3Latency) expect(Math.abs(d.at - latencyAt.get(key(d))!)).toBeLessThan(1e-6);
  });

  it('latency at 100 ms carries over 90% of its data rate; csma at 100 ms carries a few frames a second', async () => {
    const offered = Array.from({ length: 600 }, (_, i) => ({ at: Math.floor((i / 300) * 100) / 100, frame: frame(i, 'a', ['b'], 1000) }));
    const throughput = (ds: Delivery<number>[]) => {
      const got = ds.filter((d) => !d.lost).sort((x, y) => x.at - y.at);
      return ((got.length - 1) * (1000 + FRAME_OVERHEAD_BYTES) * 8) / (got.at(-1)!.at - got[0].at);
    };
    const latency = await drive(
      await start<number>({ channel: 'latency', delay: 0.1, jitter: 0, dataRate: 2e6, loss: 0 }, ['a', 'b']),
      offered,
      4,
    );
    expect(throughput(latency) / 2e6).toBeGreaterThan(0.9);
    const csma = await drive(
      await start<number>({ channel: 'csma', delay: 0.1, dataRate: 2e6, loss: 0 }, ['a', 'b']),
      offered.slice(0, 60),
      4,
    );
    const framesPerSecond = throughput(csma) / ((1000 + FRAME_OVERHEAD_BYTES) * 8);
    expect(framesPerSecond).toBeLessThan(10);
  });

  it('the same run number gives identical outcomes; another run number other losses and jitter', async () => {
    const network: ResolvedNetwork = { channel: 'latency', delay: 0.05, jitter: 0.01, dataRate: 10e6, loss: 0.3 };
    const sends = Array.from({ length: 200 }, (_, i) => ({
      at: i * 0.01,
      frame: frame(i, i % 2 ? 'a' : 'b', i % 2 ? ['b', 'c'] : ['a', 'c'], 300),
    }));
    const once = await drive(await start<number>(network, ['a', 'b', 'c'], { run: 7 }), sends, 3);
    const twice = await drive(await start<number>(network, ['a', 'b', 'c'], { run: 7 }), sends, 3);
    const other = await drive(await start<number>(network, ['a', 'b', 'c'], { run: 8 }), sends, 3);
    expect(twice).toEqual(once);
    expect(other).not.toEqual(once);
    const lost = once.filter((d) => d.lost);
    expect(new Set(lost.map((d) => d.lost))).toEqual(new Set(['channel-loss']));
    expect(lost.length / once.length).toBeGreaterThan(0.2);
    expect(lost.length / once.length).toBeLessThan(0.4);
  });

  it('every frame has an outcome at every intended receiver: unicast losses, and frames the sender could not queue', async () => {
    for (const channelKind of ['csma', 'latency'] as const) {
      const lossy: ResolvedNetwork =
        channelKind === 'csma'
          ? { channel: 'csma', delay: 0.01, dataRate: 10e6, loss: 0.3 }
          : { channel: 'latency', delay: 0.01, jitter: 0, dataRate: 10e6, loss: 0.3 };
      const unicasts = Array.from({ length: 100 }, (_, i) => ({ at: i * 0.01, frame: frame(i, 'a', ['b'], 300) }));
      const out = await drive(await start<number>(lossy, ['a', 'b']), unicasts, 2);
      expect(out.map((d) => d.payload).sort((x, y) => x - y)).toEqual(unicasts.map((s) => s.frame.payload));
      expect(out.filter((d) => d.lost === 'channel-loss').length).toBeGreaterThan(15);
    }
    // 150 frames of 1400 B at one instant into a 1 Mbit/s csma bus whose device queue holds 100
    const burst = Array.from({ length: 150 }, (_, i) => ({ at: 0.1, frame: frame(i, 'a', ['b'], 1400) }));
    const out = await drive(await start<number>({ channel: 'csma', delay: 0.001, dataRate: 1e6, loss: 0 }, ['a', 'b']), burst, 3);
    expect(out).toHaveLength(150);
    const dropped = out.filter((d) => d.lost === 'queue-drop').length;
    expect(dropped).toBeGreaterThan(40);
    expect(out.filter((d) => !d.lost).length + dropped).toBe(150);
  });

  it('asks ns-3 only while frames are in flight: one frame a second over 60 s takes a few hundred syncs, not 6000', async () => {
    const channel = await start<number>({ channel: 'csma', delay: 0.01, dataRate: 100e6, loss: 0 }, ['a', 'b']);
    const sends = Array.from({ length: 60 }, (_, i) => ({ at: i + 0.5, frame: frame(i, 'a', ['b'], 200) }));
    const out = await drive(channel, sends, 60);
    expect(out).toHaveLength(60);
    expect(channel.syncs).toBeLessThan(60 * 4);
  });

  it('a process that served a run gives the next run exactly what a fresh process gives (lossy latency with jitter)', async () => {
    const network: ResolvedNetwork = { channel: 'latency', delay: 0.05, jitter: 0.01, dataRate: 10e6, loss: 0.3 };
    const sends = Array.from({ length: 100 }, (_, i) => ({
      at: i * 0.01,
      frame: frame(i, i % 2 ? 'a' : 'b', i % 2 ? ['b', 'c'] : ['a', 'c'], 300),
    }));
    freshPool();
    const fresh = await start<number>(network, ['a', 'b', 'c'], { run: 3 });
    const first = await drive(fresh, sends, 2);
    await fresh.close();
    const reused = await start<number>(network, ['a', 'b', 'c'], { run: 3 });
    expect(reused.pid).toBe(fresh.pid);
    expect(await drive(reused, sends, 2)).toEqual(first);
  });

  it('a channel process that dies fails the next step with its name and how it ended', async () => {
    const channel = await start<number>({ channel: 'csma', delay: 0.01, dataRate: 100e6, loss: 0 }, ['a', 'b']);
    process.kill(channel.pid!, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    channel.send(frame(1, 'a', ['b'], 100), 0);
    await expect(channel.advanceTo(0.01)).rejects.toThrow(/ns-3 channel process \(lock-step\) was killed by SIGKILL/);
  });
});

const wifi = wifiNetwork;
const parked = (xs: number[]) => () => xs.map((x) => ({ x, y: 0, vx: 0, vy: 0 }));
const broadcasts = (n: number) => Array.from({ length: n }, (_, i) => ({ at: 0.05 + i * 0.05, frame: frame(i, 'a', ['b'], 300, true) }));

describe.skipIf(real.skip)('ns-3 in lock-step: wifi-80211p', () => {
  it('a run where nothing acts on a delivery gets the same outcomes without waiting for ns-3 each step', async () => {
    const names = ['a', 'b', 'c', 'd'];
    let now = 0;
    // four cars moving apart and back along a line: distances, powers and losses change every step
    const motion = () =>
      names.map((_, i) => ({ x: i * 12 + (i - 1.5) * 4 * Math.sin(now), y: 0, vx: (i - 1.5) * 4 * Math.cos(now), vy: 0 }));
    const sends = Array.from({ length: 160 }, (_, i) => ({
      at: 0.013 + i * 0.025,
      frame: frame(
        i,
        names[i % 4],
        names.filter((n) => n !== names[i % 4]),
        300,
        true,
      ),
    }));
    const run = async (outcomesOnlyLogged: boolean) => {
      const argv = lockstepArgv({ network: wifi({ txPower: 0 }), nodes: names.length, run: 2 });
      const channel = LockstepChannel.start<number>({ binary: wifiBinary, argv, names, motion, outcomesOnlyLogged });
      open.push(channel as LockstepChannel<unknown>);
      const out: Delivery<number>[] = [];
      const queue = [...sends];
      for (let k = 0; k <= 400; k++) {
        now = Math.round(k * STEP * 1e9) / 1e9;
        await channel.advanceTo(now);
        out.push(...channel.deliverDue(now));
        while (queue.length && queue[0].at <= now + 1e-12) channel.send(queue.shift()!.frame, now);
      }
      await channel.settle(now);
      out.push(...channel.deliverDue(now));
      await channel.close();
      return { out, syncs: channel.syncs };
    };
    const waiting = await run(false);
    const logged = await run(true);
    expect(logged.syncs).toBe(0);
    expect(waiting.syncs).toBeGreaterThan(100);
    expect(logged.out).toEqual(waiting.out);
    expect(waiting.out).toHaveLength(160 * 3);
    const lost = waiting.out.filter((d) => d.lost).length;
    expect(lost).toBeGreaterThan(20);
    expect(lost).toBeLessThan(440);
  });

  it('a channel process that dies fails a run that does not wait for it, with its name', async () => {
    const argv = lockstepArgv({ network: wifi(), nodes: 2, run: 1 });
    const channel = LockstepChannel.start<number>({
      binary: wifiBinary,
      argv,
      names: ['a', 'b'],
      motion: parked([0, 5]),
      outcomesOnlyLogged: true,
    });
    open.push(channel as LockstepChannel<unknown>);
    await channel.ready;
    process.kill(channel.pid!, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    await expect(channel.advanceTo(0.01)).rejects.toThrow(/ns-3 channel process \(lock-step\) was killed by SIGKILL/);
    await expect(channel.settle(0.02)).rejects.toThrow(/killed by SIGKILL/);
  });

  // ns-3's LogDistancePropagationLossModel defaults: exponent 3, 46.6777 dB at 1 m; a frame is
  // detected only above the preamble detection model's minimum RSSI, -82 dBm.
  const rxPowerDbm = (txDbm: number, d: number) => txDbm - 46.6777 - 30 * Math.log10(d);
  const sensitivityDbm = -82;
  const rangeM = 10 ** ((20 - 46.6777 - sensitivityDbm) / 30);

  it('two parked cars 5 m apart get ~every broadcast, with the power the model predicts; 10% inside the range as well', async () => {
    const out = await drive(await start<number>(wifi(), ['a', 'b'], { motion: parked([0, 5]) }), broadcasts(100), 6);
    const got = out.filter((d) => !d.lost);
    expect(got.length).toBeGreaterThanOrEqual(98);
    for (const d of got) expect(d.rxPowerDbm).toBeCloseTo(rxPowerDbm(20, 5), 3);
    const inside = await drive(await start<number>(wifi(), ['a', 'b'], { motion: parked([0, rangeM * 0.9]) }), broadcasts(100), 6);
    expect(inside.filter((d) => !d.lost).length).toBeGreaterThanOrEqual(95);
  });

  it(`beyond the range the model predicts (${Math.round(rangeM)} m at 20 dBm) nothing arrives, each loss below sensitivity`, async () => {
    const out = await drive(await start<number>(wifi(), ['a', 'b'], { motion: parked([0, rangeM * 1.05]) }), broadcasts(100), 6);
    expect(out).toHaveLength(100);
    expect(out.every((d) => d.lost === 'below-sensitivity')).toBe(true);
  });

  it('broadcasts go at the configured rate: the time on air is what 802.11p OFDM at 10 MHz takes for the frame', async () => {
    // preamble + SIGNAL 40 us, then 8 us symbols carrying rate * 8 us bits: SERVICE 16 + tail 6 +
    // the MPDU (300 B payload + 28 UDP/IP + 8 LLC/SNAP + 24 MAC header + 4 FCS)
    const airtime = (rate: number) => 40e-6 + Math.ceil((16 + 6 + 8 * (300 + 28 + 8 + 24 + 4)) / (rate * 8e-6)) * 8e-6;
    const access: number[] = [];
    for (const rate of [6e6, 12e6, 27e6]) {
      const sends = broadcasts(5);
      const out = await drive(await start<number>(wifi({ rate }), ['a', 'b'], { motion: parked([0, 5]) }), sends, 1);
      expect(out.every((d) => !d.lost)).toBe(true);
      for (const d of out) access.push(d.at - sends[d.payload].at - airtime(rate));
    }
    // what is left is the MAC's wait for an idle medium (about AIFS, 58 us), far less than a rate step
    // changes the time on air (536, 288, 152 us; broadcasts at the 3 Mbit/s basic rate would take 1024)
    for (const wait of access) {
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThan(70e-6);
    }
  });

  it('two cars that send at the same instant cannot hear each other: each loss is receiver-busy', async () => {
    const both = Array.from({ length: 20 }, (_, i) => [
      { at: 0.05 + i * 0.05, frame: frame(2 * i, 'a', ['b'], 300, true) },
      { at: 0.05 + i * 0.05, frame: frame(2 * i + 1, 'b', ['a'], 300, true) },
    ]).flat();
    const out = await drive(await start<number>(wifi(), ['a', 'b'], { motion: parked([0, 5]) }), both, 2);
    expect(out).toHaveLength(40);
    expect(out.every((d) => d.lost === 'receiver-busy')).toBe(true);
  });

  it('a process that served a run gives the next run exactly what a fresh process gives (3GPP with walls, random shadowing)', async () => {
    const width = 100;
    const height = 20;
    const occupied = new Uint8Array(width * height);
    for (let row = 0; row < height; row++) occupied[row * width + 50] = 1;
    const walls = join(scratch, 'reuse-walls.grid');
    writeObstacleGrid(new OccupancyGrid({ width, height, resolution: 0.5, origin: { x: -25, y: -5, yaw: 0 }, occupied }), walls);
    const network = wifi({ propagation: '3gpp-v2v-urban', obstacles: 'map' });
    const moving = () => [
      { x: -10, y: 0, vx: 5, vy: 0 },
      { x: 3, y: 1, vx: 0, vy: 0 },
      { x: 8, y: -2, vx: -2, vy: 0 },
    ];
    const sends = Array.from({ length: 60 }, (_, i) => ({
      at: 0.05 + i * 0.02,
      frame: frame(
        i,
        ['a', 'b', 'c'][i % 3],
        ['a', 'b', 'c'].filter((n) => n !== ['a', 'b', 'c'][i % 3]),
        300,
        true,
      ),
    }));
    freshPool();
    const fresh = await start<number>(network, ['a', 'b', 'c'], { run: 4, motion: moving, obstacleFile: walls });
    const first = await drive(fresh, sends, 2);
    await fresh.close();
    const reused = await start<number>(network, ['a', 'b', 'c'], { run: 4, motion: moving, obstacleFile: walls });
    expect(reused.pid).toBe(fresh.pid);
    const second = await drive(reused, sends, 2);
    expect(second).toEqual(first);
    expect(new Set(first.map((d) => d.lineOfSight))).toEqual(new Set([true, false]));
  });

  it('walls of the map between two cars cut delivery that works in the open, and the line of sight is reported', async () => {
    // 50 m x 10 m at 0.5 m cells, two one-cell walls across at x = -1 and x = +1
    const width = 100;
    const height = 20;
    const occupied = new Uint8Array(width * height);
    for (let row = 0; row < height; row++) for (const col of [48, 52]) occupied[row * width + col] = 1;
    const grid = new OccupancyGrid({ width, height, resolution: 0.5, origin: { x: -25, y: -5, yaw: 0 }, occupied });
    const walls = join(scratch, 'walls.grid');
    writeObstacleGrid(grid, walls);
    const network = wifi({ obstacles: 'map' });
    const open = await drive(
      await start<number>({ ...network, obstacles: 'none' }, ['a', 'b'], {
        motion: () => [
          { x: -10, y: 0, vx: 0, vy: 0 },
          { x: 10, y: 0, vx: 0, vy: 0 },
        ],
      }),
      broadcasts(100),
      6,
    );
    const walled = await drive(
      await start<number>(network, ['a', 'b'], {
        motion: () => [
          { x: -10, y: 0, vx: 0, vy: 0 },
          { x: 10, y: 0, vx: 0, vy: 0 },
        ],
        obstacleFile: walls,
      }),
      broadcasts(100),
      6,
    );
    expect(open.filter((d) => !d.lost).length).toBeGreaterThanOrEqual(95);
    expect(walled.filter((d) => !d.lost).length).toBeLessThanOrEqual(5);
    expect(walled.every((d) => d.lineOfSight === false)).toBe(true);
    // two walls crossed, 0.5 m inside each: Sommer et al.'s 9 dB per wall and 0.4 dB per metre
    const expected = rxPowerDbm(20, 20) - 2 * 9 - 0.4 * 1;
    expect(expected).toBeLessThan(sensitivityDbm);
    expect(walled.filter((d) => d.lost).every((d) => d.lost === 'below-sensitivity')).toBe(true);
    for (const d of walled) expect(d.rxPowerDbm!).toBeCloseTo(expected, 0);
  });
});
