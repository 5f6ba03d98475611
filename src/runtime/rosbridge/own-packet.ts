import { gnSourceOf } from '../../core/v2x/networking/geonetworking.js';
import { stationIdOf } from '../../core/v2x/networking/station-id.js';

/** What own code gets with a standard message it received: the GN packet that crossed the channel, base64. */
export const packetText = (packet: Uint8Array) => Buffer.from(packet.buffer, packet.byteOffset, packet.byteLength).toString('base64');

/**
 * A standard message own code asks `car` to send as a GeoNetworking packet (base64): the packet,
 * or why it is refused. Its GN source must be the car's own station (stationIdOf), as every
 * receiver checks of a datagram's sender: own code cannot speak for another car.
 */
export function ownPacket(car: string, base64: string): { packet: Uint8Array } | { problem: string } {
  const packet = new Uint8Array(Buffer.from(base64, 'base64'));
  let source;
  try {
    source = gnSourceOf(packet);
  } catch {
    source = undefined;
  }
  if (!source) return { problem: 'not a GeoNetworking packet with a source position vector' };
  const station = new DataView(source.mac.buffer, source.mac.byteOffset, 6).getUint32(2);
  const own = stationIdOf(car);
  return station === own ? { packet } : { problem: `its GN source is station ${station}, not ${car}'s station ${own}` };
}
