import { UserInputError } from '../../../errors.js';
import { appsNeedMap } from '../../../world/create-apps.js';
import { BridgeClient } from '../../rosbridge/bridge-client.js';
import { V2VEndpoint } from '../v2v/transport.js';
import { readMapGrid, readResolvedScenario } from './process-env.js';
import { type VehicleOutcome, type VehicleProcessConfig, VehicleSession } from './vehicle-session.js';
import { type OpenRehearsedSession, rehearseControlLink } from './warm-up/control-link-rehearsal.js';
import { gainsFromOptimizingTier, optimizeEagerly, stopOptimizing } from './warm-up/optimizing-tier.js';

export type { VehicleOutcome, VehicleProcessConfig } from './vehicle-session.js';

/** How long the V2V socket waits for its address to appear. */
const EADDR_WAIT_MS = 600_000;

export interface RunningVehicle {
  /** Resolves when the simulator says stop, the link is lost, or `interrupt` is called. */
  readonly finished: Promise<VehicleOutcome>;
  interrupt(reason: string): void;
}

/**
 * Opens the V2V socket, connects to the simulator (retrying until it listens), subscribes to the
 * car's own odometry and that of the cars it observes, and reports itself ready.
 */
export async function startVehicleProcess(cfg: VehicleProcessConfig): Promise<RunningVehicle> {
  const scenario = readResolvedScenario(cfg.runDir);
  const spec = scenario.vehicles.find((v) => v.name === cfg.vehicle);
  if (!spec)
    throw new UserInputError(`CAVSIM_VEHICLE=${cfg.vehicle} is not a vehicle of scenario ${scenario.name}`, [
      `vehicles: ${scenario.vehicles.map((v) => v.name).join(', ')}`,
    ]);
  // the map's walls, for apps that look at them (a CPM reports no wall as an object), as the host wrote them
  if (appsNeedMap(spec)) cfg = { ...cfg, grid: readMapGrid(cfg.runDir) };
  const light = !gainsFromOptimizingTier(spec);
  if (light) optimizeEagerly();
  // Only a warm-up: a car that cannot rehearse (no loopback, say) still drives, compiling in the run.
  const scratchSession: OpenRehearsedSession = (client, v2v, simUrl) =>
    new VehicleSession(scenario, spec, client, v2v, { ...cfg, simUrl, log: undefined });
  const rehearsal = await rehearseControlLink(scenario, spec, scratchSession).then(
    (r) => `rehearsed over ${r.ticks} scratch ticks (${r.answered} drive commands)`,
    (err: unknown) => `not rehearsed (${err instanceof Error ? err.message : String(err)})`,
  );
  cfg.log?.(`vehicle ${spec.name}: control link ${rehearsal}`);
  if (light) stopOptimizing();
  let session: VehicleSession | undefined;
  const endpoint = await V2VEndpoint.open({
    name: spec.name,
    bindAddress: cfg.bind.host,
    port: cfg.bind.port,
    // Only the other vehicles, over the channel, may deliver V2V datagrams; its own address for the warm-up.
    acceptFrom: new Set([...cfg.peers.map((peer) => peer.address), cfg.bind.host, '127.0.0.1']),
    // The host adds eth1 after every container has started: with many vehicles on a busy machine
    // that takes long. The orchestrator bounds the whole start; this only has to outwait it.
    bindTimeoutMs: EADDR_WAIT_MS,
    onWaitingForAddress: () => cfg.log?.(`vehicle ${spec.name}: waiting for ${cfg.bind.host} (eth1, set up by the host)`),
    peerNames: new Map(cfg.peers.map((peer) => [peer.address, peer.name])),
    onForged: (f) => session?.onForged(f),
    onArrival: (a) => session?.onArrival(a),
  });
  await endpoint.warmUp();
  await endpoint.connect(cfg.peers);
  let client: BridgeClient;
  try {
    client = await BridgeClient.connect(cfg.simUrl, { timeoutMs: cfg.connectTimeoutMs ?? 30_000 });
  } catch (err) {
    await endpoint.close();
    throw err;
  }
  session = new VehicleSession(scenario, spec, client, endpoint, cfg);
  return { finished: session.finished, interrupt: (reason) => session!.finish(0, reason) };
}
