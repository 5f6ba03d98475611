import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopScenarioYaml } from '../../../bench/sim-bench.js';
import { createPurePursuit } from '../../../src/core/control/pure-pursuit.js';
import type { Odometry, VehicleContext } from '../../../src/core/control/vehicle-context.js';
import type { DriveCommand } from '../../../src/core/physics/types.js';
import { LIGHT_CAR_BUILT, notLight } from '../../../src/runtime/emulated/light-car.js';
import type { ProbeConfig, ProbeReport } from '../../../src/runtime/emulated/v2v/stack-probe.js';
import { BridgeClient } from '../../../src/runtime/rosbridge/bridge-client.js';
import { TOPICS } from '../../../src/runtime/rosbridge/control-topics.js';
import { MSG_TYPES, optionalStampNs, parseDriveMsg, parseOdometryMsg } from '../../../src/runtime/rosbridge/ros-messages.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import type { ResolvedVehicle } from '../../../src/scenario/resolved.js';
import { buildEntryPoints, repoRoot, runOnLoopback } from './support.js';

/**
 * Four pure-pursuit cars on the loop, each running the light-car program against the real
 * simulator on loopback. Every drive command is checked against cavsim's TypeScript pure pursuit
 * on the odometry it answers, as the simulator sent it: the same controller, whatever the timing.
 */
describe('the light-car program on loopback: four cars on the loop', () => {
  let entry: ReturnType<typeof buildEntryPoints>;
  const cleanup: string[] = [];
  beforeAll(() => {
    entry = buildEntryPoints();
  });
  afterAll(() => {
    for (const d of cleanup) rmSync(d, { recursive: true, force: true });
  });

  it('answers every control tick with the command cavsim’s pure pursuit gives on that odometry, and beacons to every other car', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-light-loop-'));
    cleanup.push(dir);
    const file = join(dir, 'loop-4.yaml');
    writeFileSync(file, loopScenarioYaml(4, '3s', { apps: '[{ type: beacon, rate: 20Hz, size: 200B }]' }));
    const scenario = await loadScenario(file, { runtime: 'docker' });
    expect(scenario.vehicles.map((v) => notLight(scenario, v))).toEqual([undefined, undefined, undefined, undefined]);
    const names = scenario.vehicles.map((v) => v.name);
    const odometry = new Map(names.map((n) => [n, new Map<bigint, Odometry>()]));
    const drives = new Map(names.map((n) => [n, [] as { stamp: bigint; cmd: DriveCommand }[]]));
    let observer: BridgeClient | undefined;
    const run = await runOnLoopback(entry, scenario, {
      runId: 'loopback-light-cars',
      light: true,
      addressPerCar: true,
      beforeStart: async (url) => {
        observer = await BridgeClient.connect(url, { timeoutMs: 5000 });
        for (const name of names) {
          observer.subscribe(TOPICS.odom(name), MSG_TYPES.odometry, (m) => {
            const o = parseOdometryMsg(m);
            odometry.get(name)!.set(o.stampNs, o);
          });
          observer.subscribe(TOPICS.drive(name), MSG_TYPES.drive, (m) =>
            drives.get(name)!.push({ stamp: optionalStampNs(m)!, cmd: parseDriveMsg(m) }),
          );
        }
      },
    });
    await observer?.close();
    cleanup.push(run.runDir);
    expect(run.simExit, run.sim.stderr()).toBe(0);
    const timing = run.summary.timing as Record<string, number>;
    console.log(`light cars on loopback: ${run.summary.status}, late commands ${timing.late_commands}/${timing.control_commands}`);
    expect(run.summary.collision).toBe(false);
    for (const v of run.vehicles) {
      expect(v.exit, v.child.stderr()).toBe(0);
      expect(v.child.stderr()).toMatch(/stopped by the simulator \(apps ticked \d+ times, last in step \d+\)/);
    }

    for (const spec of scenario.vehicles as (ResolvedVehicle & { controller: { type: 'pure-pursuit' } })[]) {
      const app = createPurePursuit({ ...spec.controller, maxSteer: spec.params.s_max });
      const sent = drives.get(spec.name)!;
      // a command for every step the run simulated after t0 (the car ticks at 100 Hz, the physics rate)
      expect(sent.length, spec.name).toBeGreaterThanOrEqual(run.summary.steps - 5);
      for (const { stamp, cmd } of sent) {
        const odom = odometry.get(spec.name)!.get(stamp);
        expect(odom, `${spec.name} answered odometry ${stamp} it was sent`).toBeDefined();
        let expected: DriveCommand | undefined;
        app.onTick?.({ own: () => odom, drive: (c: DriveCommand) => (expected = c) } as unknown as VehicleContext);
        expect(cmd.speed).toBe(expected!.speed);
        expect(Math.abs(cmd.steer - expected!.steer)).toBeLessThanOrEqual(1e-12);
      }
    }

    // 20 Hz for about 3 s from each car, each beacon received by the three others (no channel here: none lost)
    const rows = readFileSync(join(run.runDir, 'v2v.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    for (const name of names) {
      const sent = new Set(rows.filter((r) => r[1] === name).map((r) => r[0]));
      expect(sent.size, name).toBeGreaterThanOrEqual(55);
      const delivered = rows.filter((r) => r[1] === name && r[8] === 'delivered');
      expect(delivered.length, name).toBeGreaterThanOrEqual(3 * (sent.size - 2));
      expect(new Set(delivered.map((r) => r[2])), name).toEqual(new Set(names.filter((n) => n !== name)));
      for (const r of delivered) {
        expect(r[3]).toBe('beacon');
        expect(Number(r[7])).toBeGreaterThanOrEqual(200); // padded to 200 B, or longer with the state in full digits
        expect(Number(r[6])).toBeGreaterThan(0);
      }
    }
  });

  it('is the stack-share probe too: both ways, every probe, its one-way latency from the kernel stamp', async () => {
    const program = join(repoRoot, LIGHT_CAR_BUILT);
    const startAtMs = Date.now() + 500;
    const probe = (name: string, bind: string, peer: { name: string; address: string }, offsetMs: number) =>
      new Promise<ProbeReport>((resolve, reject) => {
        const cfg: ProbeConfig = {
          name,
          bind,
          port: 7455,
          peer,
          count: 20,
          intervalMs: 10,
          startAtMs: startAtMs + offsetMs,
          sizeBytes: 200,
          lingerMs: 300,
        };
        execFile(program, ['--probe', JSON.stringify(cfg)], (err, stdout) =>
          err ? reject(err) : resolve(JSON.parse(stdout) as ProbeReport),
        );
      });
    const [a, b] = await Promise.all([
      probe('car0', '127.0.0.21', { name: 'car1', address: '127.0.0.22' }, 0),
      probe('car1', '127.0.0.22', { name: 'car0', address: '127.0.0.21' }, 5),
    ]);
    for (const r of [a, b]) {
      expect(r.sent).toBe(20);
      expect(r.received.map((x) => x.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      for (const x of r.received) expect(x.latency_ms).toBeGreaterThan(0);
    }
  });
});
