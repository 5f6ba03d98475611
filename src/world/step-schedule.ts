import type { ResolvedScenario, ResolvedVehicle } from '../scenario/resolved.js';

/**
 * When things happen, in physics steps: how many steps a run has, every how many steps a car's
 * controller runs and its lidar scans, and every how many steps progress is reported. The one
 * definition for both runtimes (the simulated loop, the simulator and vehicle containers), so a
 * scenario steps the same way in each. Pure arithmetic; do not reorder it (runs are compared bit
 * for bit).
 */

/** Seconds (of run time) between two progress reports. */
export const PROGRESS_INTERVAL_S = 0.1;

/** Steps between two runs of something at `rateHz`: the nearest whole number, at least 1. */
export function stepsPerPeriod(rateHz: number, timestep: number): number {
  return Math.max(1, Math.round(1 / rateHz / timestep));
}

export interface StepSchedule {
  timestep: number;
  /** Steps in the whole run: `duration / timestep`, rounded. */
  totalSteps: number;
  /** Report progress every this many steps. */
  progressEvery: number;
  /** Run the car's controller every this many steps. */
  controlPeriod(vehicle: Pick<ResolvedVehicle, 'controlRate'>): number;
  /** Scan every this many steps; undefined for a car without a lidar. */
  scanPeriod(vehicle: Pick<ResolvedVehicle, 'lidar'>): number | undefined;
}

export function stepSchedule(scenario: Pick<ResolvedScenario, 'duration' | 'physics'>): StepSchedule {
  const { timestep } = scenario.physics;
  return {
    timestep,
    totalSteps: Math.round(scenario.duration / timestep),
    progressEvery: Math.max(1, Math.round(PROGRESS_INTERVAL_S / timestep)),
    controlPeriod: (vehicle) => stepsPerPeriod(vehicle.controlRate, timestep),
    scanPeriod: (vehicle) => (vehicle.lidar ? stepsPerPeriod(vehicle.lidar.rate, timestep) : undefined),
  };
}
