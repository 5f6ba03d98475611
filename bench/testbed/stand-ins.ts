/** Test and bench scaffolding: stand-in vehicles are plain namespaces, not containers. */
import type { JournaledHostNet } from '../../src/host/network/journaled-ops.js';
import { runTag } from '../../src/host/network/names.js';

export interface StandIns {
  vehicles: Array<{ name: string; netns: { name: string }; controlIp: string }>;
  simulator: { netns: { name: string }; controlIp: string };
  control: { subnet: string; simulatorIp: string };
}

/**
 * Plain network namespaces standing in for vehicle containers and the simulator container, joined
 * by a bridge standing in for the Docker network (each gets eth0 there). All journaled.
 */
export async function createStandIns(
  net: JournaledHostNet,
  runId: string,
  vehicleNames: string[],
  controlThird: number,
): Promise<StandIns> {
  const tag = runTag(runId);
  const base = `10.211.${controlThird}`;
  const controlBridge = `br-${tag}-c`;
  await net.createBridge(controlBridge);
  await net.addRule({ chain: 'FORWARD', in: controlBridge, out: controlBridge, jump: 'ACCEPT', comment: `cavsim:${runId}` }, 'insert');
  const members = [
    ...vehicleNames.map((name, i) => ({ name, key: `${i}`, ip: `${base}.${i + 2}` })),
    { name: 'sim', key: 's', ip: `${base}.1` },
  ];
  const made = [];
  for (const m of members) {
    const netns = { name: `cvt-${tag}-${m.key}` };
    await net.createNetns(netns.name);
    await net.createVeth({
      hostEnd: `cv-${tag}-c${m.key}h`,
      peer: `cv-${tag}-c${m.key}v`,
      bridge: controlBridge,
      netns,
      insideName: 'eth0',
      cidr: `${m.ip}/24`,
    });
    made.push({ name: m.name, netns, controlIp: m.ip });
  }
  const simulator = made.pop()!;
  return { vehicles: made, simulator, control: { subnet: `${base}.0/24`, simulatorIp: simulator.controlIp } };
}
