import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCsvRecords } from '../../src/util/csv-records.js';
import { packageRoot } from '../../src/util/package-root.js';

const mapsDir = () => join(packageRoot(), 'maps/');

export interface RingScenarioOptions {
  cars: number;
  duration: number; // [s]
  delayMs: number;
  name?: string;
  /** Largest speed difference between cars, as a fraction of the waypoint speed (default 0.5). */
  speedSpread?: number;
  ttcThresholdMs?: number;
}

/**
 * A busy scene for the view's load figure and screenshots: cars spread around the stadium loop
 * at different speeds, each watching the car ahead and broadcasting a brake message when its TTC
 * drops, so the run has trajectories, goal points, V2V traffic and braking to draw.
 */
export function ringScenarioYaml(opts: RingScenarioOptions): string {
  const dir = mapsDir();
  const centreline = readCsvRecords(readFileSync(`${dir}loop.centerline.csv`, 'utf8'))
    .slice(1)
    .map((r) => r.cells.map(Number));
  const lines = [
    `name: ${opts.name ?? `ring-${opts.cars}`}`,
    `map: ${dir}loop.yaml`,
    `duration: ${opts.duration}s`,
    'network:',
    '  channel: csma',
    `  delay: ${opts.delayMs}ms`,
    'vehicles:',
  ];
  for (let i = 0; i < opts.cars; i++) {
    const k = Math.floor((i * centreline.length) / opts.cars);
    const [x, y] = centreline[k];
    const [nx, ny] = centreline[(k + 1) % centreline.length];
    const yaw = Math.atan2(ny - y, nx - x);
    // Alternate fast and slow cars so that some catch up with the car ahead.
    const spread = opts.speedSpread ?? 0.5;
    const speedScale = 1 - spread / 2 + (spread * ((i * 7) % opts.cars)) / Math.max(1, opts.cars - 1);
    lines.push(
      `  - name: car${i}`,
      `    start: { x: ${x}, y: ${y}, yaw: ${yaw.toFixed(6)}, speed: 0 }`,
      `    observes: [car${(i + 1) % opts.cars}]`,
      '    controller:',
      '      type: pure-pursuit',
      `      waypoints: ${dir}loop.centerline.csv`,
      '      lookahead: 1.5',
      '      loop: true',
      `      speedScale: ${speedScale.toFixed(3)}`,
      '    apps:',
      '      - type: ttc-brake-sender',
      `        threshold: ${opts.ttcThresholdMs ?? 700}ms`,
      "        to: '*'",
      '        brakeSelf: true',
      '      - type: brake-receiver',
    );
  }
  return `${lines.join('\n')}\n`;
}
