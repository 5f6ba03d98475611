import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../../src/api/run-simulated.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-traffic-speed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('CommonRoad cars at highway speed on the traffic road', () => {
  it.each(['commonroad-bmw-320i', 'commonroad-ford-escort', 'commonroad-vw-vanagon'])(
    'a %s at 25 m/s, driven by the generated cars’ lane keeping, holds its lane and speed for 10 s',
    async (vehicle) => {
      const file = join(dir, `${vehicle}.yaml`);
      // one car a lane on 3 lanes, 10 s at 25 m/s: 250 m of the generated road's run-out
      writeFileSync(
        file,
        `name: highway-speed
duration: 10s
network: { channel: latency, engine: builtin }
record: { mcap: false }
traffic:
  road: { length: 500m, lanes: 3, laneWidth: 3.5m }
  density: 6/km
  speed: 25m/s
  vehicle: ${vehicle}
`,
      );
      const { summary, runDir } = await runScenarioSimulated(file, { runsDir: join(dir, 'runs') });
      expect(summary).toMatchObject({ status: 'completed', collision: false, sim_time_s: 10 });
      expect(summary.warnings ?? []).toEqual([]);
      const rows = readFileSync(join(runDir, 'vehicles.csv'), 'utf8').trim().split('\n').slice(1);
      const byCar = new Map<string, number[][]>();
      for (const row of rows) {
        const cells = row.split(',');
        const list = byCar.get(cells[1]) ?? [];
        list.push(cells.map(Number));
        byCar.set(cells[1], list);
      }
      expect(byCar.size).toBe(3);
      for (const trace of byCar.values()) {
        const laneY = trace[0][3];
        expect([-3.5, 0, 3.5]).toContain(laneY);
        for (const [, , , y, yaw, v] of trace) {
          expect(Math.abs(y - laneY)).toBeLessThan(1e-6);
          expect(Math.abs(yaw)).toBeLessThan(1e-6);
          expect(v).toBeCloseTo(25, 6);
        }
        expect(trace.at(-1)![2] - trace[0][2]).toBeCloseTo(250, 1);
      }
    },
  );
});
