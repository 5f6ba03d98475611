import { standardMessageProblem } from '../../../core/v2x/facilities/message-gate.js';
import type { V2VReceivedData, V2VReport } from '../../rosbridge/control-topics.js';
import { ownPacket, packetText } from '../../rosbridge/own-packet.js';
import { destinationProblem } from '../../rosbridge/v2v-destination.js';
import { bodyOfPacket } from '../v2v/packet-body.js';
import type { Arrival } from '../v2v/transport.js';

/** What a V2V relay does with a send its car's own code asked for: refuse it (and why), or send it. */
export type SendDecision =
  | { refused: 'v2v-destination' | 'v2v-source'; reason: string }
  | {
      /** The car's own GN packet, for a standard message. */
      packet?: Uint8Array;
      /** It claims to be a CAM, DENM or CPM and is none: sent as asked, dropped by every receiver, counted once. */
      malformed?: string;
    };

/**
 * The sender-side checks, as the simulated runtime's own-code driver makes them: the address
 * (`*` or another car of the run: `peers`), the GN source (the car's own station), then the gate.
 */
export function decideSend(request: { to: string; type: string; packet?: string }, car: string, peers: ReadonlySet<string>): SendDecision {
  const where = destinationProblem(request, car, peers);
  if (where) return { refused: 'v2v-destination', reason: where };
  const own = request.packet === undefined ? undefined : ownPacket(car, request.packet);
  if (own && 'problem' in own) return { refused: 'v2v-source', reason: own.problem };
  const malformed = standardMessageProblem(request.type, own?.packet);
  return { ...(own ? { packet: own.packet } : {}), ...(malformed ? { malformed } : {}) };
}

/**
 * A datagram that reached `car`: what its code gets on `/carN/v2v/received` (nothing when the
 * receive-side gate drops it as malformed), and the receipt for v2v.csv; undefined when it is not
 * for `car`. `runTime` turns epoch nanoseconds into run time [s].
 */
export function relayArrival(
  a: Arrival,
  car: string,
  runTime: (ns: bigint) => number,
): { received?: V2VReceivedData; receipt: Extract<V2VReport, { kind: 'received' }> } | undefined {
  const d = a.datagram;
  if (d.from === car || (d.to !== '*' && d.to !== car)) return undefined;
  const malformed = standardMessageProblem(d.type, d.packet);
  const receipt = {
    kind: 'received' as const,
    id: d.id,
    from: d.from,
    to: car,
    type: d.type,
    sent_ns: d.sentAtNs,
    received_ns: a.receivedNs.toString(),
    size_bytes: a.size,
    ...(malformed ? { malformed } : {}),
  };
  if (malformed) return { receipt };
  // own code speaks JSON: a standard message's packet is handed over decoded
  const received: V2VReceivedData = {
    id: d.id,
    from: d.from,
    to: car,
    type: d.type,
    body: d.packet ? bodyOfPacket(d.type, d.packet) : d.body,
    ...(d.packet ? { packet: packetText(d.packet) } : {}),
    sent_s: runTime(BigInt(d.sentAtNs)),
    received_s: runTime(a.receivedNs),
  };
  return { received, receipt };
}
