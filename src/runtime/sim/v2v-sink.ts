import type { Delivery } from '../../channel/frames.js';
import type { V2VMessage } from '../../core/control/vehicle-context.js';
import { centreDistance } from '../../core/physics/ttc.js';
import type { Recorder, V2VLoss, V2VRecord } from '../../measurement/recorder.js';
import type { V2VCapture } from '../../measurement/v2v-capture.js';
import type { FleetV2v } from '../../run/fleet-v2v.js';
import type { World } from '../../world/world.js';

/**
 * Bytes of a message on the wire: a standard V2X message's GeoNetworking packet (GN + BTP + the
 * message), else its JSON's UDP payload, or the size it asked to be padded to.
 */
export const payloadBytes = (msg: V2VMessage) =>
  msg.packet?.length ?? Math.max(Buffer.byteLength(JSON.stringify({ ...msg, sizeBytes: undefined })), msg.sizeBytes ?? 0);

/** Where the simulated runtime puts what the cars send and what becomes of it. */
export interface V2vSink {
  /** A message handed to the channel for `to` (the cars it is meant for). */
  sent(msg: V2VMessage, sizeBytes: number, to: readonly string[]): void;
  /** Records the outcomes due; returns the deliveries, for the receivers' inboxes. */
  outcomes(due: readonly Delivery<V2VMessage>[]): Delivery<V2VMessage>[];
}

/**
 * One v2v.csv row (and run.mcap message) per frame and receiver, with the distance when sent, and
 * every frame in v2v.pcap: what a run of up to V2V_ROWS_MAX_CARS cars records (fleet-mode.ts).
 */
export function rowsSink(recorder: Recorder, world: World, capture: V2VCapture | undefined): V2vSink {
  const cars = new Map(world.cars.map((c) => [c.spec.name, c]));
  /** Each message's payload size, encoded once when sent: a broadcast has an outcome per receiver. */
  const sizes = new WeakMap<V2VMessage, number>();
  return {
    sent(msg, size, to) {
      const car = cars.get(msg.from)!;
      sizes.set(msg, size);
      const distances = new Map(to.map((n) => [n, centreDistance(world.odometry(car), world.odometry(cars.get(n)!))]));
      recorder.recordSent({
        id: msg.id,
        from: msg.from,
        to,
        type: msg.type,
        sentAt: msg.sentAt,
        sizeBytes: size,
        distances,
        ...(msg.packet ? { gnPacket: true } : {}),
        ...(msg.malformed ? { malformed: true } : {}),
      });
      capture?.sent(msg, world.odometry(car), size);
    },
    outcomes(due) {
      for (const d of due) {
        const msg = d.payload;
        // built field by field: object spreads cost far more at thousands of outcomes a run
        const frame: V2VLoss & V2VRecord = {
          id: msg.id,
          from: msg.from,
          to: d.to,
          type: msg.type,
          sentAt: msg.sentAt,
          sizeBytes: sizes.get(msg) ?? payloadBytes(msg),
        } as V2VLoss & V2VRecord;
        if (d.rxPowerDbm !== undefined) frame.rxPowerDbm = d.rxPowerDbm;
        if (d.lineOfSight !== undefined) frame.lineOfSight = d.lineOfSight;
        // a frame lost on the air never reached the receiver's gate; one that arrived malformed is dropped there
        if (d.lost || msg.malformed) {
          frame.reason = d.lost ?? 'malformed';
          recorder.recordLost(frame);
        } else {
          frame.receivedAt = d.at;
          recorder.recordReceived(frame);
        }
      }
      return due.filter((d) => !d.lost && !d.payload.malformed);
    },
  };
}

/**
 * Fleets: messages, bytes and pairs counted, and outcomes in the fleet's tally. A channel that
 * tallies them itself (the builtin radio) hands out only deliveries to cars that listen; for any
 * other, each outcome is added here, at the distance between the two cars when the frame was sent
 * (every car's position kept once per step that sends, the distance taken only for outcomes).
 */
export function fleetSink(fleet: FleetV2v, world: World, channelTallies: boolean): V2vSink {
  const index = new Map(world.cars.map((c, i) => [c.spec.name, i]));
  const sentWhere = new WeakMap<V2VMessage, Float64Array>();
  let where: Float64Array | undefined;
  let whereStep = -1;
  const positions = () => {
    if (whereStep !== world.steps) {
      where = new Float64Array(2 * world.cars.length);
      world.cars.forEach((c, i) => {
        where![2 * i] = c.state.x;
        where![2 * i + 1] = c.state.y;
      });
      whereStep = world.steps;
    }
    return where!;
  };
  return {
    sent(msg, size, to) {
      fleet.countSent(to.length, size);
      if (!channelTallies && to.length) sentWhere.set(msg, positions());
    },
    outcomes(due) {
      const delivered: Delivery<V2VMessage>[] = [];
      // a broadcast's outcomes come one receiver after another: its sender looked up once for them all
      let msg: V2VMessage | undefined;
      let at: Float64Array | undefined;
      let a = 0;
      for (const d of due) {
        if (!channelTallies) {
          if (d.payload !== msg) {
            msg = d.payload;
            at = sentWhere.get(msg)!;
            a = 2 * index.get(msg.from)!;
          }
          const b = 2 * index.get(d.to)!;
          const outcome = d.lost ?? (d.payload.malformed ? 'malformed' : 'delivered');
          fleet.tally.add(outcome, Math.hypot(at![a] - at![b], at![a + 1] - at![b + 1]), d.at - msg.sentAt);
        }
        if (!d.lost && !d.payload.malformed) delivered.push(d);
      }
      return delivered;
    },
  };
}
