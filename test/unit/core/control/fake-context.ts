import type { LaserScan, Odometry, VehicleContext } from '../../../../src/core/control/vehicle-context.js';
import type { DriveCommand } from '../../../../src/core/physics/types.js';

/** A VehicleContext whose clock, pose and scan the test sets, recording every drive command. */
export function fakeContext(init: { scan?: LaserScan; own?: Partial<Odometry>; t?: number } = {}) {
  const state = {
    t: init.t ?? 0,
    scan: init.scan,
    own: init.own ? ({ t: 0, x: 0, y: 0, yaw: 0, v: 0, steer: 0, yawRate: 0, ...init.own } as Odometry) : undefined,
  };
  const drives: DriveCommand[] = [];
  const ctx: VehicleContext = {
    name: 'car0',
    now: () => state.t,
    own: () => state.own,
    others: () => new Map(),
    neighbours: () => new Map(),
    overrideSpeed: () => {},
    scan: () => state.scan,
    drive: (cmd) => drives.push(cmd),
    emergencyBrake: () => {},
    isBraking: () => false,
    send: () => {},
    log: () => {},
  };
  return { ctx, state, drives };
}
