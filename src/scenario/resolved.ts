import type { VehicleParams } from '../physics/types.js';
import type { CommandStep, Waypoint } from '../control/waypoints.js';
import type { AppParsed } from './schema.js';

/** A scenario after all three validation steps: SI units, defaults filled, files read. Serialisable. */
export interface ResolvedScenario {
  name: string;
  description?: string;
  sourceFile: string;
  mapFile: string;
  duration: number;
  seed: number;
  physics: { timestep: number; integrator: 'rk4' | 'euler' };
  network: { channel: 'csma'; delay: number; dataRate: number; loss: number; script?: string };
  timing: { maxStepLateness: number; maxLateFraction: number };
  vehicles: ResolvedVehicle[];
}

export interface ResolvedVehicle {
  name: string;
  index: number;
  start: { x: number; y: number; yaw: number; speed: number };
  params: VehicleParams;
  controlRate: number;
  observes: string[];
  controller: ResolvedController;
  apps: AppParsed[];
  image?: string;
  command?: string[];
  resources: { cpus?: number; memory?: number };
}

export type ResolvedController =
  | {
      type: 'pure-pursuit';
      waypoints: Waypoint[];
      lookahead: number;
      lookaheadTolerance: number;
      gain: number;
      speedScale: number;
      loop: boolean;
    }
  | { type: 'open-loop'; schedule: CommandStep[] }
  | { type: 'idle' };
