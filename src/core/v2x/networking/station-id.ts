/**
 * A car's ITS station ID: the 32-bit FNV-1a hash of its scenario name, so it stays the same when
 * cars are added, removed or reordered (docs/v2x-messages.md). Its link-layer address (GN address
 * MID, Ethernet source in v2v.pcap) is 02:00 followed by the ID's four octets: locally
 * administered, unicast, and readable back to the station.
 */
export function stationIdOf(name: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(name)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export function stationMac(stationId: number): Uint8Array {
  const mac = new Uint8Array(6);
  mac[0] = 0x02;
  new DataView(mac.buffer).setUint32(2, stationId);
  return mac;
}
