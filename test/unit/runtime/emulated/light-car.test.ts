import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLaneKeeping } from '../../../../src/core/control/lane-keeping.js';
import { createOpenLoop } from '../../../../src/core/control/open-loop.js';
import { createPurePursuit } from '../../../../src/core/control/pure-pursuit.js';
import type { VehicleContext } from '../../../../src/core/control/vehicle-context.js';
import type { DriveCommand } from '../../../../src/core/physics/types.js';
import { createBeacon } from '../../../../src/core/v2x/apps/beacon.js';
import { LIGHT_CAR_BUILT, lightControllerText, notLight } from '../../../../src/runtime/emulated/light-car.js';
import { planEmulatedRun } from '../../../../src/runtime/emulated/plan-emulated.js';
import { odometryJson, parseOdometryMsg } from '../../../../src/runtime/rosbridge/ros-messages.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';
import type { ResolvedScenario, ResolvedVehicle } from '../../../../src/scenario/resolved.js';
import { packageRoot } from '../../../../src/util/package-root.js';
import { createRandom, deriveSeed } from '../../../../src/util/random.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-light-car-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = packageRoot();
const program = join(root, LIGHT_CAR_BUILT);

async function scenarioOf(vehicles: string, name = 's.yaml'): Promise<ResolvedScenario> {
  const file = join(dir, name);
  writeFileSync(file, `name: light\nmap: ${join(root, 'maps/loop.yaml')}\nduration: 2s\nvehicles:\n${vehicles}`);
  return loadScenario(file, { runtime: 'docker' });
}

const LOOP_CAR = (name: string, extra = '') =>
  `  - name: ${name}\n    start: { x: 0, y: -8 }\n    controller: { type: pure-pursuit, waypoints: ${join(root, 'maps/loop.centerline.csv')}, lookahead: 1.5, loop: true }\n${extra}`;

/** Ticks the light program in its --parity mode: one answer line per odometry line. */
function lightTicks(spec: string, odometryLines: string[]): string[] {
  if (!existsSync(program))
    throw new Error(`${program} is missing: run \`npm run build\` (it needs a C compiler, scripts/setup.sh installs one)`);
  // spawnSync rather than execFileSync: a program that refuses its input exits before reading stdin (EPIPE here)
  const r = spawnSync(program, ['--parity'], { input: `${odometryLines.join('\n')}\n`, env: { CAVSIM_LIGHT_CONTROLLER: spec } });
  if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr}`);
  return r.stdout.toString().trim().split('\n');
}

/** A controller ticked as the vehicle session ticks it: the odometry parsed back, the step's time. */
function nodeTick(app: ReturnType<typeof createPurePursuit>, line: string, stepNs: bigint, timestep: number): string {
  const odom = parseOdometryMsg(JSON.parse(line));
  const step = Number(odom.stampNs / stepNs);
  let command: DriveCommand | undefined;
  const ctx = { own: () => odom, now: () => step * timestep, drive: (c: DriveCommand) => (command = c) } as unknown as VehicleContext;
  app.onTick?.(ctx);
  return command ? `${step} ${command.speed} ${command.steer}` : `${step} none`;
}

/** The light program's answer with its numbers read back as doubles, to compare with Node's. */
const asDoubles = (line: string) =>
  line
    .split(' ')
    .map((w) => (w === 'none' ? w : String(Number(w))))
    .join(' ');

describe('which cars run the light-car program', () => {
  it('takes pure pursuit, lane keeping, open loop and idle cars with nothing else, in a scenario where no car sends V2V', async () => {
    const s = await scenarioOf(`${LOOP_CAR('car0')}  - name: car1\n    start: { x: 5, y: -8 }\n`);
    expect(s.vehicles.map((v) => notLight(s, v))).toEqual([undefined, undefined]);
  });

  it('leaves a car on Node when it has a lidar or an app other than beacons, or another car may send other V2V', async () => {
    const s = await scenarioOf(
      `${LOOP_CAR('car0', '    lidar: {}\n')}  - name: car1\n    start: { x: 5, y: -8 }\n    apps: [{ type: cam }]\n  - name: car2\n    start: { x: -5, y: -8 }\n`,
    );
    const [car0, car1, car2] = s.vehicles;
    expect(notLight(s, car0)).toBe('it has a lidar');
    expect(notLight(s, car1)).toBe('it has a cam app');
    expect(notLight(s, car2)).toBe('car1 may send V2V other than beacons');
  });

  it('takes beaconing cars: each beacon with its first offset, and a V2V socket in every car once one beacons', async () => {
    const s = await scenarioOf(
      `${LOOP_CAR('car0', '    apps: [{ type: beacon, rate: 20Hz, size: 200B }]\n')}  - name: car1\n    start: { x: 5, y: -8 }\n`,
    );
    expect(s.vehicles.map((v) => notLight(s, v))).toEqual([undefined, undefined]);
    const [car0, car1] = s.vehicles.map((v) => lightControllerText(s, v).split('\n'));
    const offset = createRandom(deriveSeed(0, 'beacon-car0'))() * (1 / 20);
    expect(car0.slice(-2)).toEqual([`beacon 20 200 * ${offset}`, 'v2v']);
    expect(car1.slice(-2)).toEqual(['idle', 'v2v']);
  });

  it('is named in the plan: the program as the command, the controller in CAVSIM_LIGHT_CONTROLLER; not with lightCars off', async () => {
    const s = await scenarioOf(LOOP_CAR('car0'));
    const light = planEmulatedRun(s, '20261129-000000-abcd', join(dir, 'run'), { lightCars: true }).vehicles[0];
    expect(light.cmd).toEqual(['/opt/cavsim/dist/light-car/cavsim-light-car']);
    expect(light.env?.CAVSIM_LIGHT_CONTROLLER).toBe(lightControllerText(s, s.vehicles[0]));
    const node = planEmulatedRun(s, '20261129-000000-abcd', join(dir, 'run'), {}).vehicles[0];
    expect(node.cmd).toBeUndefined();
    expect(node.env?.CAVSIM_LIGHT_CONTROLLER).toBeUndefined();
  });
});

describe('the light-car program steers as cavsim’s TypeScript controllers do', () => {
  it('pure pursuit: the same command on 4,000 poses around the loop and anywhere on the map', async () => {
    const s = await scenarioOf(LOOP_CAR('car0'));
    const v = s.vehicles[0] as ResolvedVehicle & { controller: { type: 'pure-pursuit' } };
    const stepNs = BigInt(Math.round(s.physics.timestep * 1e9));
    const random = createRandom(7);
    const path = v.controller.waypoints;
    const lines = Array.from({ length: 4000 }, (_, k) => {
      const near = path[Math.floor(random() * path.length)];
      const anywhere = k % 4 === 3;
      const x = anywhere ? -40 + 80 * random() : near.x + (random() - 0.5) * 2;
      const y = anywhere ? -40 + 80 * random() : near.y + (random() - 0.5) * 2;
      const yaw = (random() - 0.5) * 2 * Math.PI;
      return odometryJson('car0', { t: 0, x, y, yaw, v: 4, steer: 0, yawRate: 0 }, BigInt(k) * stepNs);
    });
    const app = createPurePursuit({ ...v.controller, maxSteer: v.params.s_max });
    const node = lines.map((line) => nodeTick(app, line, stepNs, s.physics.timestep));
    const light = lightTicks(lightControllerText(s, v), lines).map(asDoubles);
    expect(light).toHaveLength(node.length);
    // sin, cos and atan2 are the C library's there and V8's here: a steer may differ in its last bits
    // (7 % of these poses), never the goal point (so the speed)
    for (let i = 0; i < node.length; i++) {
      const [step, speed, steer] = node[i].split(' ').map(Number);
      const [lStep, lSpeed, lSteer] = light[i].split(' ').map(Number);
      expect([lStep, lSpeed]).toEqual([step, speed]);
      expect(Math.abs(lSteer - steer)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(steer)));
    }
  });

  it('lane keeping: the same command on 2,000 poses at speeds from 0 to 30 m/s', async () => {
    const s = await scenarioOf(
      `  - name: car0\n    start: { x: 0, y: -8 }\n    controller: { type: lane-keeping, y: -8, direction: -x, speed: 12 }\n`,
    );
    const v = s.vehicles[0] as ResolvedVehicle & { controller: { type: 'lane-keeping' } };
    const stepNs = BigInt(Math.round(s.physics.timestep * 1e9));
    const random = createRandom(5);
    const lines = Array.from({ length: 2000 }, (_, k) =>
      odometryJson(
        'car0',
        { t: 0, x: 30 * random(), y: -8 + 4 * (random() - 0.5), yaw: Math.PI + random() - 0.5, v: 30 * random(), steer: 0, yawRate: 0 },
        BigInt(k) * stepNs,
      ),
    );
    const c = v.controller;
    const app = createLaneKeeping({
      ...c,
      direction: c.direction === '+x' ? 1 : -1,
      wheelbase: v.params.lf + v.params.lr,
      maxSteer: v.params.s_max,
    });
    const node = lines.map((line) => nodeTick(app, line, stepNs, s.physics.timestep));
    const light = lightTicks(lightControllerText(s, v), lines).map(asDoubles);
    for (let i = 0; i < node.length; i++) {
      const [step, speed, steer] = node[i].split(' ').map(Number);
      const [lStep, lSpeed, lSteer] = light[i].split(' ').map(Number);
      expect([lStep, lSpeed]).toEqual([step, speed]);
      expect(Math.abs(lSteer - steer)).toBeLessThanOrEqual(1e-12);
    }
  });

  it('open loop: the same command at every step, none before the first entry', async () => {
    const s = await scenarioOf(
      `  - name: car0\n    start: { x: 0, y: -8 }\n    controller: { type: open-loop, schedule: [{ t: 50ms, speed: 2, steer: 0.1 }, { t: 0.3s, speed: 3.5, steer: -0.2 }, { t: 1s, speed: 0, steer: 0 }] }\n`,
    );
    const v = s.vehicles[0] as ResolvedVehicle & { controller: { type: 'open-loop' } };
    const stepNs = BigInt(Math.round(s.physics.timestep * 1e9));
    const lines = Array.from({ length: 150 }, (_, k) =>
      odometryJson('car0', { t: 0, x: 0, y: 0, yaw: 0, v: 0, steer: 0, yawRate: 0 }, BigInt(k) * stepNs),
    );
    const app = createOpenLoop(v.controller.schedule);
    const node = lines.map((line) => nodeTick(app, line, stepNs, s.physics.timestep));
    expect(lightTicks(lightControllerText(s, v), lines).map(asDoubles)).toEqual(node);
    expect(node[0]).toBe('0 none');
    expect(node.at(-1)).toBe('149 0 0');
  });

  it('beacons: sent on the same ticks with the same state (yaw within 1e-12 rad, the rest exact)', async () => {
    const s = await scenarioOf(LOOP_CAR('car0', '    apps: [{ type: beacon, rate: 30Hz, size: 200B }]\n'));
    const v = s.vehicles[0];
    const stepNs = BigInt(Math.round(s.physics.timestep * 1e9));
    const random = createRandom(11);
    const lines = Array.from({ length: 300 }, (_, k) =>
      odometryJson(
        'car0',
        { t: 0, x: 10 * random(), y: -8 + random(), yaw: (random() - 0.5) * 6, v: 3 + random(), steer: 0, yawRate: random() - 0.5 },
        BigInt(k) * stepNs,
      ),
    );
    const beacon = createBeacon('car0', v.apps[0] as Parameters<typeof createBeacon>[1]);
    const node = lines.map((line) => {
      const odom = parseOdometryMsg(JSON.parse(line));
      const step = Number(odom.stampNs / stepNs);
      const own = { ...odom, t: step * s.physics.timestep };
      let sent: Record<string, number> | undefined;
      const ctx = { own: () => own, now: () => own.t, send: (_to: string, _type: string, body: Record<string, number>) => (sent = body) };
      beacon.onTick?.(ctx as unknown as VehicleContext);
      return sent;
    });
    const light = lightTicks(lightControllerText(s, v), lines).map((l) => {
      const at = l.indexOf(' beacon ');
      return at < 0 ? undefined : (JSON.parse(l.slice(at + 8)) as Record<string, number>);
    });
    expect(light.map((b) => b !== undefined)).toEqual(node.map((b) => b !== undefined));
    expect(node.filter(Boolean).length).toBe(90);
    node.forEach((b, i) => {
      if (!b) return;
      const { yaw, ...rest } = light[i]!;
      expect(rest).toEqual(Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'yaw')));
      expect(Math.abs(yaw - b.yaw)).toBeLessThanOrEqual(1e-12);
    });
  });

  it('refuses a controller text it cannot read, naming what is wrong', () => {
    expect(() => lightTicks('cavsim.light-car/1 0.01 1\npure-pursuit 1.5 0.5 1 1 0.4 3\n0 0 1\n', [])).toThrow(/fewer rows than it says/);
  });
});
