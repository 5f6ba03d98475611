/** Test and bench scaffolding: a whole emulated V2V path with namespaces as stand-in vehicles. */
import { join } from 'node:path';
import { builtinChannelScript, compileChannelProgram } from '../../src/channel/ns3/compile.js';
import { realtimeChannelArgv } from '../../src/channel/ns3/realtime-argv.js';
import { type StartedChannel, startChannel } from '../../src/channel/ns3/realtime-channel.js';
import type { CommandRunner } from '../../src/host/exec/command-runner.js';
import { processUndoers } from '../../src/host/exec/process-identity.js';
import type { Journal, TeardownReport } from '../../src/host/journal/journal.js';
import type { HostNetOps } from '../../src/host/network/hostnet-port.js';
import { JournaledHostNet } from '../../src/host/network/journaled-ops.js';
import { type DeviceAttachment, type HostNetPlan, planHostNetwork } from '../../src/host/network/plan.js';
import { type StartedHostNetwork, setUpHostNetwork } from '../../src/host/network/set-up.js';
import { hostNetUndoers } from '../../src/host/network/undoers.js';
import type { WifiNetwork, WiredNetwork } from '../../src/scenario/resolved.js';
import { createStandIns, type StandIns } from './stand-ins.js';

export interface Testbed {
  standIns: StandIns;
  plan: HostNetPlan;
  network: StartedHostNetwork;
  channel?: StartedChannel;
  teardown(): Promise<TeardownReport>;
}

export async function startTestbed(p: {
  runId: string;
  vehicleCount: number;
  /** The channel between the stand-ins (default csma at 100 Mbit/s); delay in s, rates in bit/s. */
  network: (Partial<WiredNetwork> & { delay: number }) | WifiNetwork;
  runDir: string;
  journal: Journal;
  ops: HostNetOps;
  runner: CommandRunner;
  withChannel?: boolean;
  channelSource?: string;
  /** Appended to the planned channel argv, e.g. the built-in program's `--frameLog=<path>`. */
  channelArgs?: string[];
  controlThird?: number;
  /** Devices joined by an interface of theirs on the host (after the stand-ins, in this order). */
  devices?: Array<{ name: string; device: DeviceAttachment }>;
}): Promise<Testbed> {
  const teardown = async () => p.journal.teardown({ ...hostNetUndoers(p.ops), ...processUndoers });
  try {
    const net = new JournaledHostNet(p.journal, p.ops, `cavsim:${p.runId}`);
    const names = Array.from({ length: p.vehicleCount }, (_, i) => `v${i}`);
    const standIns = await createStandIns(net, p.runId, names, p.controlThird ?? 0);
    const plan = planHostNetwork({
      runId: p.runId,
      vehicles: [...standIns.vehicles.map((v) => ({ name: v.name, netns: v.netns })), ...(p.devices ?? [])],
      control: standIns.control,
      channelUid: process.getuid?.() ?? 0,
    });
    const network = await setUpHostNetwork(plan, { journal: p.journal, ops: p.ops });
    let channel: StartedChannel | undefined;
    if (p.withChannel !== false) {
      const binary = await compileChannelProgram(p.channelSource ?? builtinChannelScript(), { runner: p.runner });
      const network =
        p.network.channel === 'wifi-80211p'
          ? p.network
          : ({ channel: 'csma', dataRate: 100e6, loss: 0, jitter: 0, ...p.network } as WiredNetwork);
      const macs = plan.vehicles.map((v) => v.mac);
      const args = [...realtimeChannelArgv({ network, taps: plan.channel.taps, macs, run: 1 }), ...(p.channelArgs ?? [])];
      channel = await startChannel({ binary, args, logPath: join(p.runDir, 'ns3.log'), journal: p.journal });
    }
    return { standIns, plan, network, channel, teardown };
  } catch (err) {
    await teardown();
    throw err;
  }
}
