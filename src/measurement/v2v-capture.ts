import type { Odometry, V2VMessage } from '../core/control/vehicle-context.js';
import { positionVectorOf } from '../core/v2x/facilities/vehicle-state.js';
import type { GeoReference } from '../core/v2x/networking/geo-reference.js';
import { encodeShb, GN_ETHERTYPE } from '../core/v2x/networking/geonetworking.js';
import { stationIdOf, stationMac } from '../core/v2x/networking/station-id.js';
import { BROADCAST_MAC, ethernetFrame, PcapLog } from './pcap-log.js';

/**
 * BTP-B port of cavsim's own messages (beacons, warnings, brake requests, own code's): their JSON,
 * padded with zeros to the size they asked for. TS 103 248 assigns no ITS service to it.
 */
export const BTP_PORT_CAVSIM_JSON = 47000;
const PASSENGER_CAR = 5;
const JSON_TRAFFIC_CLASS = 3;

/**
 * v2v.pcap: every frame a car handed to the channel, once, at the time it was sent, as the
 * Ethernet frame (ethertype 0x8947) that carries its GeoNetworking packet. A standard message
 * (a CAM) is its own packet; any other goes in a GN single-hop broadcast packet built from the
 * sender's state at that time. Receptions are not repeated: v2v.csv has each receiver's outcome.
 */
export class V2VCapture {
  private readonly log: PcapLog;

  constructor(
    path: string,
    private readonly geoReference: GeoReference,
  ) {
    this.log = new PcapLog(path);
  }

  /** `sender`: the sending car's state at `msg.sentAt`; `payloadBytes`: the size v2v.csv gives it. */
  sent(msg: V2VMessage, sender: Odometry, payloadBytes: number): void {
    const stationId = stationIdOf(msg.from);
    const destination = msg.to === '*' ? BROADCAST_MAC : stationMac(stationIdOf(msg.to));
    const packet = msg.packet ?? this.jsonPacket(msg, { ...sender, t: msg.sentAt }, stationId, payloadBytes);
    this.log.add(msg.sentAt, ethernetFrame(destination, stationMac(stationId), GN_ETHERTYPE, packet));
  }

  private jsonPacket(msg: V2VMessage, sender: Odometry, stationId: number, payloadBytes: number): Uint8Array {
    const json = new TextEncoder().encode(JSON.stringify({ ...msg, packet: undefined, sizeBytes: undefined }));
    const payload = new Uint8Array(Math.max(json.length, payloadBytes));
    payload.set(json);
    return encodeShb({
      source: positionVectorOf(sender, { stationId, stationType: PASSENGER_CAR }, this.geoReference),
      btpPort: BTP_PORT_CAVSIM_JSON,
      trafficClass: JSON_TRAFFIC_CLASS,
      payload,
    });
  }

  flush(): void {
    this.log.flush();
  }

  close(): void {
    this.log.close();
  }
}
