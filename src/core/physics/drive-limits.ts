import type { DriveCommand, VehicleParams } from './types.js';

/**
 * A command inside the car's physical limits (speed v_min..v_max, steering s_min..s_max): the same
 * command when it already is, else a new one clamped to them. What asked for more is the caller's to count.
 */
export function withinDriveLimits(command: DriveCommand, limits: Pick<VehicleParams, 'v_min' | 'v_max' | 's_min' | 's_max'>): DriveCommand {
  const speed = Math.min(limits.v_max, Math.max(limits.v_min, command.speed));
  const steer = Math.min(limits.s_max, Math.max(limits.s_min, command.steer));
  return speed === command.speed && steer === command.steer ? command : { ...command, speed, steer };
}
