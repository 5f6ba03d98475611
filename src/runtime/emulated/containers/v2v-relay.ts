import { RELAY_CONTROL_SOURCE_PORT } from '../../../ports.js';
import { BridgeClient } from '../../rosbridge/bridge-client.js';
import {
  type EventReport,
  parseJsonData,
  parseSimControl,
  TOPICS,
  V2V_FORGED_EVENT,
  V2V_REFUSED_EVENT,
  type V2VReport,
  v2vSendSchema,
} from '../../rosbridge/control-topics.js';
import { MSG_TYPES, parseStringMsg, stringMsg } from '../../rosbridge/ros-messages.js';
import { type Arrival, V2VEndpoint } from '../v2v/transport.js';
import { epochNs } from '../v2v/wire.js';
import { decideSend, relayArrival } from './v2v-relay-checks.js';
import type { RunningVehicle, VehicleOutcome, VehicleProcessConfig } from './vehicle-process.js';

const EADDR_WAIT_MS = 600_000;
/** Sends a car's code makes before the relay knows the run's start, held until it does (more are dropped, and logged). */
const EARLY_SENDS_HELD = 1000;

/**
 * The V2V half of a vehicle that runs its own code, in emulation: a cavsim container sharing the
 * vehicle container's network namespace, so its UDP socket is the vehicle's eth1 and every datagram
 * crosses the ns-3 channel. It turns `/carN/v2v/send` into datagrams and datagrams into
 * `/carN/v2v/received` (with run times, as in the simulated runtime), and reports both on
 * `/cavsim/v2v` for v2v.csv. The vehicle's code needs nothing but the control link, in either runtime.
 */
export async function startV2VRelay(cfg: VehicleProcessConfig): Promise<RunningVehicle> {
  const car = cfg.vehicle;
  const log = cfg.log ?? (() => {});
  let t0: bigint | undefined;
  let seq = 0;
  let client: BridgeClient | undefined;
  const report = (topic: string, data: object) => client?.publish(topic, stringMsg(JSON.stringify(data)));
  const runTime = (ns: bigint) => (t0 === undefined ? 0 : Number(ns - t0) / 1e9);
  const onArrival = (a: Arrival) => {
    if (t0 === undefined) return;
    const got = relayArrival(a, car, runTime);
    if (got?.received) report(TOPICS.v2vReceived(car), got.received);
    if (got) report(TOPICS.v2v, got.receipt satisfies V2VReport);
  };
  const endpoint = await V2VEndpoint.open({
    name: car,
    bindAddress: cfg.bind.host,
    port: cfg.bind.port,
    acceptFrom: new Set(cfg.peers.map((p) => p.address)),
    peerNames: new Map(cfg.peers.map((p) => [p.address, p.name])),
    onForged: (f) =>
      t0 !== undefined &&
      report(TOPICS.events, { vehicle: car, t_s: runTime(epochNs()), event: V2V_FORGED_EVENT, detail: { ...f } } satisfies EventReport),
    bindTimeoutMs: EADDR_WAIT_MS,
    onWaitingForAddress: () => log(`v2v relay ${car}: waiting for ${cfg.bind.host} (eth1, set up by the host)`),
    onArrival,
  });
  await endpoint.warmUp();
  warmUpRequestParsing(car);
  try {
    await endpoint.connect(cfg.peers);
    client = await BridgeClient.connect(cfg.simUrl, { timeoutMs: cfg.connectTimeoutMs ?? 30_000, localPort: RELAY_CONTROL_SOURCE_PORT });
  } catch (err) {
    await endpoint.close();
    throw err;
  }
  const link = client;
  let resolveFinished!: (o: VehicleOutcome) => void;
  const finished = new Promise<VehicleOutcome>((resolve) => (resolveFinished = resolve));
  let ending = false;
  const finish = (exitCode: 0 | 1, reason: string) => {
    if (ending) return;
    ending = true;
    log(`v2v relay ${car}: ${reason} (${seq} messages sent)`);
    void Promise.allSettled([endpoint.close(), link.close()]).then(() => resolveFinished({ exitCode, reason }));
  };

  const peerNames = new Set(cfg.peers.map((p) => p.name));
  const send = async (data: string) => {
    const request = parseJsonData(v2vSendSchema, data, TOPICS.v2vSend(car));
    const id = `${car}-${++seq}`;
    // checked here, as in the simulated runtime: ns-3 never sees a frame to no other car
    const decision = decideSend(request, car, peerNames);
    if ('refused' in decision) {
      const detail = { refused: decision.refused, type: request.type, to: request.to, reason: decision.reason };
      report(TOPICS.events, { vehicle: car, t_s: runTime(epochNs()), event: V2V_REFUSED_EVENT, detail } satisfies EventReport);
      return log(`v2v relay ${car}: message ${id} not sent: ${decision.reason}`);
    }
    const targets = request.to === '*' ? cfg.peers : cfg.peers.filter((p) => p.name === request.to);
    // a malformed message goes on the air as sent; every receiver's gate drops it, and the simulator counts it once, from this report
    const { packet, malformed } = decision;
    const wire = packet ? { packet } : request.size_bytes !== undefined ? { sizeBytes: request.size_bytes } : {};
    const sent = await Promise.all(
      targets.map((p) =>
        endpoint.sendStamped({ id, to: request.to, address: p.address, port: p.port, type: request.type, body: request.body, ...wire }),
      ),
    );
    const content = packet ? { packet: request.packet } : { body: request.body };
    report(TOPICS.v2v, {
      kind: 'sent',
      id,
      from: car,
      to: request.to,
      type: request.type,
      size_bytes: sent[0].size,
      sent_ns: sent[0].sentAtNs.toString(),
      ...content,
      ...(malformed ? { malformed } : {}),
    } satisfies V2VReport);
  };

  link.advertise(TOPICS.v2vReceived(car), MSG_TYPES.string);
  for (const topic of [TOPICS.v2v, TOPICS.events, TOPICS.ready]) link.advertise(topic, MSG_TYPES.string);
  const sendLogged = (data: string) => send(data).catch((err: unknown) => log(`v2v relay ${car}: send failed: ${(err as Error).message}`));
  // the car's code may answer the simulator before the start notice reaches this relay: its sends
  // wait for it (and are checked then), so none is lost unrecorded
  const early: string[] = [];
  let earlyDropped = 0;
  link.subscribe(TOPICS.simControl, MSG_TYPES.string, (msg) => {
    const control = parseSimControl(parseStringMsg(msg), TOPICS.simControl);
    if (control.cmd === 'stop') return finish(0, 'stopped by the simulator');
    if (t0 !== undefined) return;
    t0 = BigInt(control.t0_epoch_ns);
    if (earlyDropped > 0) log(`v2v relay ${car}: ${earlyDropped} sends before the start dropped (over ${EARLY_SENDS_HELD} held)`);
    for (const data of early.splice(0)) void sendLogged(data);
  });
  link.subscribe(TOPICS.v2vSend(car), MSG_TYPES.string, (msg) => {
    if (ending) return;
    if (t0 !== undefined) return void sendLogged(parseStringMsg(msg));
    if (early.length < EARLY_SENDS_HELD) early.push(parseStringMsg(msg));
    else earlyDropped++;
  });
  // Woken every step like the car beside it: a relay idle for seconds answered its first request late.
  link.subscribe(TOPICS.clock, MSG_TYPES.clock, () => {});
  link.onStatus((s) => log(`v2v relay ${car}: bridge ${s.level}: ${s.msg}`));
  link.publish(TOPICS.ready, stringMsg(JSON.stringify({ vehicle: car, part: 'v2v-relay' })));
  void link.closed.then(() => finish(1, 'the connection to the simulator closed before it said stop'));
  return { finished, interrupt: (reason) => finish(0, reason) };
}

/** Parses sample requests so the first real one does not pay for compiling the validation path. */
function warmUpRequestParsing(car: string): void {
  const sample = JSON.stringify({ to: '*', type: 'warm-up', body: { n: 1 }, size_bytes: 64 });
  for (let i = 0; i < 200; i++) parseJsonData(v2vSendSchema, sample, TOPICS.v2vSend(car));
}
