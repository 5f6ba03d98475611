import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** A traffic block through the built CLI: 200 generated cars run in the simulated runtime on their generated road. */
const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');
const work = mkdtempSync(join(tmpdir(), 'cavsim-traffic-'));
const runsDir = join(work, 'runs');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const LANE_Y = [-3.5, 0, 3.5];
const ROAD_HALF_WIDTH = 5.25;
const BMW_HALF_WIDTH = 1.61 / 2;

const scenario = (density: string) => {
  const file = join(work, `traffic-${density.replace('/', '-per-')}.yaml`);
  writeFileSync(
    file,
    `name: traffic-run
duration: 1s
seed: 3
network: { channel: latency, engine: builtin, delay: 5ms }
traffic:
  road: { length: 1km, lanes: 3, laneWidth: 3.5m }
  density: ${density}
  speed: 20m/s
  jitter: 0.5
  vehicle: commonroad-bmw-320i
  apps: [ { type: beacon, rate: 10Hz, size: 190B } ]
`,
  );
  return file;
};

function cavsim(args: string[]) {
  const r = spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a traffic scenario through the CLI', () => {
  it('200 cars at 200/km on 1 km run for 1 s, each in its lane on the road at its speed, none colliding', () => {
    const r = cavsim(['up', scenario('200/km'), '--runtime', 'sim', '--runs-dir', runsDir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ status: 'completed', collision: false, sim_time_s: 1 });
    const runDir = summary.run_dir as string;

    const [header, ...rows] = readFileSync(join(runDir, 'vehicles.csv'), 'utf8').trim().split('\n');
    const column = (name: string) => header.split(',').indexOf(name);
    const [t, vehicle, x, y, v] = ['t_s', 'vehicle', 'x_m', 'y_m', 'speed_mps'].map(column);
    expect(Math.min(t, vehicle, x, y, v)).toBeGreaterThanOrEqual(0);
    const cells = rows.map((row) => row.split(','));
    expect(new Set(cells.map((c) => c[vehicle])).size).toBe(200);
    expect(cells).toHaveLength(200 * (summary.steps + 1));
    for (const c of cells) {
      const lane = LANE_Y.find((centre) => Math.abs(Number(c[y]) - centre) < 0.01);
      expect(lane, `${c[vehicle]} at y = ${c[y]}`).toBeDefined();
      expect(Math.abs(Number(c[y])) + BMW_HALF_WIDTH).toBeLessThan(ROAD_HALF_WIDTH);
      // on the road at the start, at most 20 m further a second later
      expect(Number(c[x])).toBeGreaterThanOrEqual(0);
      expect(Number(c[x])).toBeLessThan(1000 + 20 + 1e-6);
      expect(Number(c[v])).toBeCloseTo(20, 3);
    }
    // the map was generated from the road: no map file to hash
    expect(JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')).map).toEqual({ file: null, sha256: null });
    const resolved = JSON.parse(readFileSync(join(runDir, 'scenario.resolved.json'), 'utf8'));
    expect(resolved.mapFile).toBeUndefined();
    expect(resolved.traffic).toMatchObject({ count: 200, road: { length: 1000, lanes: 3, runOut: 20 } });
  });

  it('refuses a density whose cars would overlap with exit status 2, naming the field and the fix, and runs nothing', () => {
    const r = cavsim(['up', scenario('600/km'), '--runtime', 'sim', '--runs-dir', join(work, 'refused')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/traffic\.density \(line 7\): 600\/km puts a lane's cars 5 m apart .* use at most 540\/km, or more lanes/);
    expect(existsSync(join(work, 'refused'))).toBe(false);
  });
});
