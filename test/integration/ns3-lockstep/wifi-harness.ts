import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelBusySample, ChannelFrame, Delivery } from '../../../src/channel/frames.js';
import { builtinChannelScript, compileChannelProgram } from '../../../src/channel/ns3/compile.js';
import { LOCKSTEP_NS3_MODULES } from '../../../src/channel/ns3/engine-choice.js';
import { lockstepArgv } from '../../../src/channel/ns3/lockstep/lockstep-argv.js';
import { LockstepChannel, type NodeMotion } from '../../../src/channel/ns3/lockstep/lockstep-channel.js';
import { createCommandRunner } from '../../../src/host/exec/command-runner.js';
import type { WifiNetwork } from '../../../src/scenario/resolved.js';
import { wifiNetwork } from '../../support/radio/networks.js';

/** The lock-step program with wifi, compiled once per source into the tests' cache. */
export const compileWifiProgram = () =>
  compileChannelProgram(builtinChannelScript('lockstep-channel'), {
    runner: createCommandRunner(),
    modules: LOCKSTEP_NS3_MODULES,
    defines: ['CAVSIM_WIFI'],
    cacheDir: join(tmpdir(), 'cavsim-test-ns3-cache'),
  });

export const wifi = wifiNetwork;

/** Where the cars are at a virtual time. */
export type Motion = (now: number) => readonly NodeMotion[];

/** Cars standing still at these points. */
export const parkedAt =
  (points: readonly { x: number; y: number }[]): Motion =>
  () =>
    points.map(({ x, y }) => ({ x, y, vx: 0, vy: 0 }));

export const broadcast = (payload: number, from: string, names: readonly string[], sizeBytes = 300): ChannelFrame<number> => ({
  payload,
  from,
  to: names.filter((n) => n !== from),
  broadcast: true,
  sizeBytes,
});

export interface Driven {
  outcomes: Delivery<number>[];
  busy: ChannelBusySample[];
}

const STEP = 0.01;

/**
 * One run of the lock-step program over wifi: each frame sent at its time, 10 ms steps to `until`
 * (and no further, so windows after it stay unfinished), every outcome and busy window taken as it comes.
 */
export async function driveWifi(
  binary: string,
  network: WifiNetwork,
  names: readonly string[],
  motion: Motion,
  sends: readonly { at: number; frame: ChannelFrame<number> }[],
  until: number,
  opts: { run?: number; stackDelay?: () => number; outcomesOnlyLogged?: boolean } = {},
): Promise<Driven> {
  const argv = lockstepArgv({ network, nodes: names.length, run: opts.run ?? 1 });
  let now = 0;
  const channel = LockstepChannel.start<number>({
    binary,
    argv,
    names,
    motion: () => motion(now),
    outcomesOnlyLogged: opts.outcomesOnlyLogged ?? false,
    ...(opts.stackDelay ? { stackDelay: opts.stackDelay } : {}),
  });
  const queue = [...sends].sort((a, b) => a.at - b.at);
  const out: Driven = { outcomes: [], busy: [] };
  try {
    for (let k = 0; k * STEP <= until + 1e-9; k++) {
      now = Math.round(k * STEP * 1e9) / 1e9;
      await channel.advanceTo(now);
      out.outcomes.push(...channel.deliverDue(now));
      out.busy.push(...(channel.takeChannelBusy(now) ?? []));
      while (queue.length && queue[0].at <= now + 1e-12) channel.send(queue.shift()!.frame, now);
    }
    await channel.settle(now);
    out.outcomes.push(...channel.deliverDue(now));
    out.busy.push(...(channel.takeChannelBusy(now) ?? []));
  } finally {
    await channel.close();
  }
  return out;
}
