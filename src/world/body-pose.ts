import type { VehicleState } from '../core/physics/types.js';

/** A physical car's pose as it reported it, stamped on the simulator's clock (its offset taken out). */
export interface ReportedPose {
  x: number;
  y: number;
  yaw: number;
  v: number;
  yawRate: number;
  steer: number;
  stampNs: bigint;
}

/**
 * Beyond this a pose is not moved forward: a report that old is a stall the run judges, and
 * constant speed and turn rate are no longer a fair guess.
 */
export const MAX_EXTRAPOLATION_S = 0.1;

/**
 * The car's state at `atNs`: the report moved forward at its own speed and yaw rate (an arc, or a
 * line when it does not turn) for the time since its stamp, at most MAX_EXTRAPOLATION_S. A report
 * stamped after `atNs` (the offset estimate errs by up to half a round trip) is taken as it is.
 */
export function poseAt(r: ReportedPose, atNs: bigint): VehicleState {
  const dt = Math.min(MAX_EXTRAPOLATION_S, Math.max(0, Number(atNs - r.stampNs) / 1e9));
  const turn = r.yawRate * dt;
  let dx: number;
  let dy: number;
  if (Math.abs(r.yawRate) < 1e-6) {
    dx = r.v * dt * Math.cos(r.yaw);
    dy = r.v * dt * Math.sin(r.yaw);
  } else {
    const radius = r.v / r.yawRate;
    dx = radius * (Math.sin(r.yaw + turn) - Math.sin(r.yaw));
    dy = radius * (Math.cos(r.yaw) - Math.cos(r.yaw + turn));
  }
  return { x: r.x + dx, y: r.y + dy, yaw: r.yaw + turn, v: r.v, yawRate: r.yawRate, steer: r.steer, slip: 0 };
}
