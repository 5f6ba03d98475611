import type { LaserScan } from '../../core/control/vehicle-context.js';
import { Float32JsonWriter } from './float32-json.js';
import { type JsonObject, ProtocolError } from './protocol.js';
import { parseStamp, rosTime } from './ros-messages.js';

/**
 * Encodes scans as the JSON text of ROS 2 sensor_msgs/msg/LaserScan messages, for one lidar. All
 * beams are taken at once, so time_increment is 0; cavsim has no intensities, so that array is
 * empty; range_min is 0 (the lidar clamps noisy ranges to [0, range_max]). The ranges are float32
 * values written so that they parse back to exactly the same float32 (Float32JsonWriter): a
 * vehicle sees the very scan the simulated runtime's controller would.
 */
export class LaserScanEncoder {
  private readonly writer = new Float32JsonWriter();

  /**
   * @param frameId the car's `base_link`: the gym's lidar sits at the car's reference point
   * @param scanTime time between scans [s] (1 / rate)
   */
  constructor(private readonly lidar: { frameId: string; scanTime: number }) {}

  /** The message's JSON text (the `msg` of a rosbridge publish op), stamped with `stampNs` of simulation time. */
  encode(scan: LaserScan, stampNs: bigint): string {
    const fixed = JSON.stringify({
      header: { stamp: rosTime(stampNs), frame_id: this.lidar.frameId },
      angle_min: scan.angleMin,
      angle_max: scan.angleMin + (scan.ranges.length - 1) * scan.angleIncrement,
      angle_increment: scan.angleIncrement,
      time_increment: 0,
      scan_time: this.lidar.scanTime,
      range_min: 0,
      range_max: scan.rangeMax,
    });
    return `${fixed.slice(0, -1)},"ranges":${this.writer.encode(scan.ranges)},"intensities":[]}`;
  }
}

/**
 * Reads a LaserScan back into the controllers' view; `t` is the stamp in seconds. A null range (how
 * JSON carries inf, "no return") reads as +Infinity.
 */
export function parseLaserScanMsg(msg: JsonObject): LaserScan & { stampNs: bigint } {
  const stampNs = parseStamp(msg, 'LaserScan');
  const raw = msg.ranges;
  if (!Array.isArray(raw)) throw new ProtocolError('LaserScan: "ranges" must be an array of numbers');
  const ranges = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const r: unknown = raw[i];
    if (typeof r === 'number') ranges[i] = r;
    else if (r === null) ranges[i] = Infinity;
    else throw new ProtocolError(`LaserScan: ranges[${i}] is not a number`);
  }
  return {
    stampNs,
    t: Number(stampNs) / 1e9,
    angleMin: finite(msg, 'angle_min'),
    angleIncrement: finite(msg, 'angle_increment'),
    rangeMax: finite(msg, 'range_max'),
    ranges,
  };
}

function finite(msg: JsonObject, key: string): number {
  const v = msg[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ProtocolError(`LaserScan: ${key} must be a finite number`);
  return v;
}
