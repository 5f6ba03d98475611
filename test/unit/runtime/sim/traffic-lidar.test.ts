import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-traffic-lidar-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a car with a lidar among traffic on the generated road', () => {
  it('scans the road edges and drives its lane', async () => {
    const file = join(dir, 'lidar.yaml');
    // a written car in the middle lane at x = 200 with a 3-beam lidar (right, ahead, left); the traffic parked at x = 500 and 833
    writeFileSync(
      file,
      `name: traffic-lidar
duration: 500ms
network: { channel: latency, engine: builtin }
record: { scans: true, mcap: false }
vehicles:
  - name: probe
    start: { x: 200, y: 0, yaw: 0, speed: 10 }
    params: { width: 1.61, length: 4.508 }
    controller: { type: lane-keeping, y: 0, speed: 10 }
    lidar: { beams: 3, fov: 3.14159, rangeMax: 30, noiseStd: 0 }
traffic:
  road: { length: 1km, lanes: 3, laneWidth: 3.5m }
  density: 2/km
`,
    );
    const { summary, runDir } = await runScenarioSimulated(file, { runsDir: join(dir, 'runs') });
    expect(summary.status).toBe('completed');
    expect(summary.collision).toBe(false);
    const scans = readFileSync(join(runDir, 'scans.csv'), 'utf8').trim().split('\n').slice(1);
    expect(scans.length).toBeGreaterThan(10);
    for (const row of scans) {
      const ranges = row.split(',')[4].split(';').map(Number);
      // the edges 5.25 m to either side, nothing within 30 m ahead
      expect(ranges[0]).toBeCloseTo(5.25, 1);
      expect(ranges[1]).toBeCloseTo(30, 3);
      expect(ranges[2]).toBeCloseTo(5.25, 1);
    }
    const probe = readFileSync(join(runDir, 'vehicles.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((row) => row.split(','))
      .filter((cells) => cells[1] === 'probe');
    // 5 m further on, still on its lane's centre line
    expect(Number(probe.at(-1)![2])).toBeCloseTo(205, 1);
    expect(Number(probe.at(-1)![3])).toBeCloseTo(0, 6);
  });
});
