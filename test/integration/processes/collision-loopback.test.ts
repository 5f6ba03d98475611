import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResolvedSimulated } from '../../../src/api/run-simulated.js';
import { BridgeClient } from '../../../src/runtime/rosbridge/bridge-client.js';
import { type CollisionReport, parseCollisionReport, TOPICS } from '../../../src/runtime/rosbridge/control-topics.js';
import { MSG_TYPES, optionalStampNs, parseOdometryMsg, parseStringMsg } from '../../../src/runtime/rosbridge/ros-messages.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { stepSchedule } from '../../../src/world/step-schedule.js';
import { buildEntryPoints, repoRoot, runOnLoopback } from './support.js';

/**
 * Head-on without the brake apps: the cars hit each other. The simulator must tell both on
 * /carN/collision before the odometry of that step, and their vehicle programs must stop ticking
 * their controllers from that step on, as the simulated runtime stops ticking a collided car.
 */
describe.each([
  { program: 'vehicle-main', light: false },
  { program: 'the light-car program', light: true },
])('simulator-main and $program on loopback: a collision', ({ light }) => {
  let entry: ReturnType<typeof buildEntryPoints>;
  const cleanup: string[] = [];
  beforeAll(() => {
    entry = buildEntryPoints();
  });
  afterAll(() => {
    for (const d of cleanup) rmSync(d, { recursive: true, force: true });
  });

  it("notifies each collided car once, before that step's odometry, and its vehicle sends no command from then on", async () => {
    const base = await loadScenario(join(repoRoot, 'scenarios/head-on-brake.yaml'), { overrides: ['duration=3s'] });
    // no apps and no observed car: each car may run the light-car program
    const scenario = { ...base, name: 'head-on-no-brake', vehicles: base.vehicles.map((v) => ({ ...v, apps: [], observes: [] })) };
    const names = scenario.vehicles.map((v) => v.name);
    const stepNs = BigInt(Math.round(scenario.physics.timestep * 1e9));

    // A rosbridge client of our own: per car, what arrived in order (odometry stamps and the
    // collision notice) and the stamps of the car's drive commands.
    let observer: BridgeClient | undefined;
    const arrivals = new Map(names.map((n) => [n, [] as ({ odom: bigint } | { notice: CollisionReport })[]]));
    const drives = new Map(names.map((n) => [n, [] as bigint[]]));
    const run = await runOnLoopback(entry, scenario, {
      runId: 'loopback-collision',
      light,
      beforeStart: async (url) => {
        observer = await BridgeClient.connect(url, { timeoutMs: 5000 });
        for (const name of names) {
          observer.subscribe(TOPICS.odom(name), MSG_TYPES.odometry, (m) => arrivals.get(name)!.push({ odom: parseOdometryMsg(m).stampNs }));
          observer.subscribe(TOPICS.collision(name), MSG_TYPES.string, (m) =>
            arrivals.get(name)!.push({ notice: parseCollisionReport(parseStringMsg(m), TOPICS.collision(name)) }),
          );
          observer.subscribe(TOPICS.drive(name), MSG_TYPES.drive, (m) => drives.get(name)!.push(optionalStampNs(m)!));
        }
      },
    });
    await observer?.close();
    cleanup.push(run.runDir);
    expect(run.simExit, run.sim.stderr()).toBe(0);
    for (const v of run.vehicles) expect(v.exit, v.child.stderr()).toBe(0);
    const reference = await runResolvedSimulated(scenario, { runsDir: join(run.runDir, 'reference') });

    const { summary } = run;
    const timing = summary.timing as Record<string, number>;
    console.log(
      `collision on loopback: ${summary.status}, first collision ${summary.first_collision_t_s} s (simulated ${reference.summary.first_collision_t_s} s), late commands ${timing.late_commands}/${timing.control_commands}`,
    );
    expect(reference.summary.collision).toBe(true);
    expect(summary.collision).toBe(true);
    expect(summary.collisions).toHaveLength(1);
    const step = Math.round(summary.first_collision_t_s! / scenario.physics.timestep);
    if (summary.status === 'completed') {
      // Both cars drive straight at constant speed: a command a step late changes nothing visible.
      expect(Math.abs(summary.first_collision_t_s! - reference.summary.first_collision_t_s!)).toBeLessThanOrEqual(
        scenario.physics.timestep + 1e-9,
      );
    }

    for (const v of scenario.vehicles) {
      const other = names.find((n) => n !== v.name)!;
      const seen = arrivals.get(v.name)!;
      const notices = seen.flatMap((a) => ('notice' in a ? [a.notice] : []));
      expect(notices, v.name).toEqual([
        { vehicle: v.name, step, t_s: expect.closeTo(step * scenario.physics.timestep, 9), with: [other], speed_mps: expect.any(Number) },
      ]);
      // Published before the odometry of the collision step, after that of the step before.
      const at = seen.findIndex((a) => 'notice' in a);
      expect(seen[at - 1], v.name).toEqual({ odom: BigInt(step - 1) * stepNs });
      expect(seen[at + 1], v.name).toEqual({ odom: BigInt(step) * stepNs });

      // The vehicle ticked on every due step up to the collision and on none after it.
      const period = stepSchedule(scenario).controlPeriod(v);
      const lastDue = Math.floor((step - 1) / period) * period;
      const stamps = drives.get(v.name)!;
      expect(stamps.length, v.name).toBeGreaterThan(0);
      expect(
        stamps.reduce((a, b) => (b > a ? b : a)),
        v.name,
      ).toBe(BigInt(lastDue) * stepNs);
      const stderr = run.vehicles.find((x) => x.name === v.name)!.child.stderr();
      expect(stderr).toContain(`collided with ${other} in step ${step}`);
      expect(stderr).toContain(`apps ticked ${lastDue / period + 1} times, last in step ${lastDue})`);
    }
  });
});
