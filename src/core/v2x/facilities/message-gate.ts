import { decodeCam, encodeCam } from '../codec/cam-pdu.js';
import { decodeCpm, encodeCpm } from '../codec/cpm-pdu.js';
import { decodeDenm, encodeDenm } from '../codec/denm-pdu.js';
import { BTP_PORT_CAM, BTP_PORT_CPM, BTP_PORT_DENM, decodeBroadcast, decodeShb } from '../networking/geonetworking.js';
import { CAM_MESSAGE } from './ca-service.js';
import { CPM_MESSAGE } from './cp-service.js';
import { DENM_MESSAGE } from './den-service.js';

/** The message types that are standard V2X messages: they travel as their GeoNetworking packet. */
export const STANDARD_MESSAGE_TYPES: readonly string[] = [CAM_MESSAGE, DENM_MESSAGE, CPM_MESSAGE];

const CODECS = new Map<number, { type: string; recode: (payload: Uint8Array) => Uint8Array }>([
  [BTP_PORT_CAM, { type: CAM_MESSAGE, recode: (p) => encodeCam(decodeCam(p)) }],
  [BTP_PORT_DENM, { type: DENM_MESSAGE, recode: (p) => encodeDenm(decodeDenm(p)) }],
  [BTP_PORT_CPM, { type: CPM_MESSAGE, recode: (p) => encodeCpm(decodeCpm(p)) }],
]);

const SHB_TYPE_OCTET = 0x50;

/**
 * The receive-side gate for standard messages (docs/v2x-messages.md, "Malformed messages"): why a
 * message of `type` with GeoNetworking `packet` is no CAM, DENM or CPM, or undefined when it is one
 * (or is no standard message and claims none). A packet is a message only if its GN and BTP headers
 * decode (lengths matching the bytes), its BTP port names a message cavsim knows, its type is the
 * one the sender claimed, and its UPER payload decodes completely with every field in the
 * standard's range: decoding and encoding it again gives back the very bytes (no trailing octets,
 * no stray bits, nothing the codec does not carry).
 */
export function standardMessageProblem(type: string, packet: Uint8Array | undefined): string | undefined {
  if (!packet) return STANDARD_MESSAGE_TYPES.includes(type) ? `a ${type} travels as its GeoNetworking packet; none was sent` : undefined;
  let btpPort: number;
  let payload: Uint8Array;
  try {
    ({ btpPort, payload } = packet.length > 5 && packet[5] === SHB_TYPE_OCTET ? decodeShb(packet) : decodeBroadcast(packet));
  } catch (err) {
    return `GeoNetworking: ${messageOf(err)}`;
  }
  const codec = CODECS.get(btpPort);
  if (!codec) return `BTP port ${btpPort} carries no CAM, DENM or CPM`;
  if (codec.type !== type) return `sent as ${JSON.stringify(type)}, the packet is a ${codec.type}`;
  let again: Uint8Array;
  try {
    again = codec.recode(payload);
  } catch (err) {
    return `${type}: ${messageOf(err)}`;
  }
  if (again.length !== payload.length) return `${type}: ${payload.length} octets where the message it decodes to has ${again.length}`;
  for (let i = 0; i < again.length; i++) if (again[i] !== payload[i]) return `${type}: octet ${i} is not what its fields encode to`;
  return undefined;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
