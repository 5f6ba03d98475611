import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cavsim-platoon-path-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Six cars on the stadium loop, the leader at the start of the bottom straight: the last cars'
// places lie round the bend behind it, where a straight line from the leader runs into the wall.
const loopPlatoon = (cars: number, spacing?: number) => {
  const file = join(dir, `loop-platoon-${cars}-${spacing ?? 'default'}.yaml`);
  writeFileSync(
    file,
    `name: loop-platoon
map: ${join(ROOT, 'maps/loop.yaml')}
duration: 3s
network: { channel: latency, delay: 10ms, engine: builtin }
platoon:
  cars: ${cars}
${spacing ? `  spacing: ${spacing}\n` : ''}  leader:
    start: { x: 0, y: -8, yaw: 0, speed: 3 }
    controller: { type: pure-pursuit, waypoints: ${join(ROOT, 'maps/loop.centerline.csv')}, loop: true, speedScale: 0.75 }
    apps: [{ type: beacon }]
  follower:
    controller: { type: pure-pursuit, waypoints: ${join(ROOT, 'maps/loop.centerline.csv')}, loop: true }
    apps: [{ type: beacon }, { type: cacc }]
`,
  );
  return file;
};

describe('a platoon block laid out along the leader path', () => {
  it('on the loop: the followers round the bend behind the leader, and the platoon validates and runs', async () => {
    const scenario = await loadScenario(loopPlatoon(6));
    const car5 = scenario.vehicles.find((v) => v.name === 'car5')!;
    // 5 x 4.38 m = 21.9 m behind along the path: past the straight's end at x = -7.75 and into the bend
    expect(car5.start.x).toBeLessThan(-12);
    expect(car5.start.y).toBeGreaterThan(-7.5);
    expect(car5.start.yaw).toBeLessThan(0); // heading down-right, towards the straight
    const { summary } = await runScenarioSimulated(loopPlatoon(6), { runsDir: dir });
    expect(summary.status).toBe('completed');
    expect(summary.collision).toBe(false);
  });

  it('a platoon longer than the loop (82 m): its last car lands on the leader; the error names the block and what to change', async () => {
    const error = await loadScenario(loopPlatoon(13, 6.85)).then(
      () => undefined,
      (e: { details?: string[] }) => e,
    );
    expect(error?.details).toEqual([
      'platoon (line 6): car12, 82.2 m behind the leader along its path, overlaps car0 at the start; use fewer cars (platoon.cars, now 13) or less spacing (platoon.spacing), or start the leader where the path behind it is free',
    ]);
  });

  it('record.scans with no lidar in the platoon points to platoon.follower.lidar, which a block takes', async () => {
    const error = await loadScenario(loopPlatoon(3), { overrides: ['record.scans=true'] }).then(
      () => undefined,
      (e: { details?: string[] }) => e,
    );
    expect(error?.details).toEqual([
      expect.stringContaining(
        "give the platoon's cars one with platoon.follower.lidar (and platoon.leader.lidar), e.g. --set platoon.follower.lidar.enabled=true",
      ),
    ]);
    await loadScenario(loopPlatoon(3), { overrides: ['record.scans=true', 'platoon.follower.lidar.enabled=true'] });
  });
});
