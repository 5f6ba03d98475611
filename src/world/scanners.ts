import type { LaserScan } from '../core/control/vehicle-context.js';
import type { OccupancyGrid } from '../core/map/occupancy-grid.js';
import { Lidar } from '../core/sensing/lidar.js';
import { prepareLidarMap } from '../core/sensing/lidar-map.js';
import { stepsPerPeriod } from './step-schedule.js';
import type { World } from './world.js';

export interface Scanner {
  name: string;
  /** Scan every this many physics steps. */
  period: number;
  /** A fresh scan from the car's current pose, seeing the walls and every other car's footprint. */
  scan(): LaserScan;
}

/** One lidar per car that has one; cars without a lidar cost nothing. The map's tables are shared. */
export function createScanners(world: World, grid: OccupancyGrid): Scanner[] {
  const equipped = world.cars.filter((c) => c.spec.lidar);
  if (!equipped.length) return [];
  const map = prepareLidarMap(grid);
  return equipped.map((car) => {
    const cfg = car.spec.lidar!;
    const lidar = new Lidar(map, { beams: cfg.beams, fov: cfg.fov, rangeMax: cfg.rangeMax, noiseStd: cfg.noiseStd, seed: cfg.seed });
    // Footprints are updated in place each step, so these references stay current.
    const others = world.cars.filter((c) => c !== car).map((c) => c.footprint);
    return {
      name: car.spec.name,
      period: stepsPerPeriod(cfg.rate, world.timestep),
      scan: () => ({
        t: world.time,
        angleMin: lidar.angleMin,
        angleIncrement: lidar.angleIncrement,
        rangeMax: lidar.rangeMax,
        ranges: lidar.scan(car.state, others),
      }),
    };
  });
}
