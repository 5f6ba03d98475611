import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../src/util/package-root.js';

/**
 * A 3 s highway scenario for cam-speaker.mjs: car0 is the own code (`car0` lines: its `command:`,
 * and an `image:` in Docker), car1 a cavsim car 20 m behind with a `cam` app. Written to `file`.
 */
export function writeCamSpeakerScenario(file: string, car0: string[]): string {
  const root = packageRoot();
  writeFileSync(
    file,
    `name: own-code-cams
map: ${join(root, 'maps/highway.yaml')}
duration: 3s
seed: 1
geoReference: { lat: 48.7758, lon: 9.1829 }
network: { channel: latency, delay: 10ms, dataRate: 6Mbps }
vehicles:
  - name: car0
    start: { x: 0, y: -1, yaw: 0, speed: 8 }
${car0.map((line) => `    ${line}\n`).join('')}  - name: car1
    start: { x: -20, y: -1, yaw: 0, speed: 8 }
    controller: { type: pure-pursuit, waypoints: ${join(root, 'maps/highway.lane0-east.csv')}, lookahead: 2.0 }
    apps: [{ type: cam }]
`,
  );
  return file;
}
