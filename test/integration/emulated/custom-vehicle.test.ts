import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarioEmulated } from '../../../src/api/run-emulated.js';
import { UserInputError } from '../../../src/errors.js';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { dockerProblem, ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';
import { emulatedHostState } from './host-state.js';

/**
 * A researcher's own vehicle image in another language: containers/examples/python-vehicle (Python,
 * standard library only, written against docs/control-protocol.md) drives car1 beside a stock cavsim
 * vehicle, end to end (images, containers, host networking, ns-3). Needs root and a Docker engine.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const EXAMPLE = join(ROOT, 'containers/examples/python-vehicle');
const unique = `${process.pid}-${randomBytes(3).toString('hex')}`;
const IMAGE = `cavsim-test/python-vehicle:${unique}`;
const ABSENT_IMAGE = `cavsim-test/absent-vehicle:${unique}`;
const CRUISE = 6;
const STOP_DISTANCE = 8;
const PARKED_X = 10;
const workDir = mkdtempSync(join(tmpdir(), 'cavsim-custom-'));
const runsDir = join(workDir, 'runs');
mkdirSync(runsDir);
const stateDir = mkdtempSync(join(tmpdir(), 'cavsim-state-'));
process.env.CAVSIM_STATE_DIR = stateDir;

const real = requireReal('emulated/custom-vehicle.test.ts', rootProblem() ?? ns3Problem() ?? (await dockerProblem()));

/** car0: a stock cavsim vehicle (idle controller), parked facing car1. car1: the Python image. */
function writeScenario(name: string, image: string): string {
  const file = join(workDir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
map: ${join(ROOT, 'maps/corridor.yaml')}
duration: 6s
network: { channel: csma, delay: 10ms, dataRate: 100Mbps }
vehicles:
  - name: car0
    start: { x: ${PARKED_X}, y: -1, yaw: 3.141592653589793, speed: 0 }
  - name: car1
    start: { x: -20, y: -1, yaw: 0, speed: 0 }
    observes: [car0]
    image: ${image}
    command: [python3, -u, /opt/cavsim-example/vehicle.py, --speed, "${CRUISE}", --stop-distance, "${STOP_DISTANCE}"]
`,
  );
  return file;
}

function csvRows(file: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
  const columns = header.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [columns[i], v])));
}

function run(argv: string[]) {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', cwd: ROOT });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return r;
}

afterAll(() => {
  spawnSync('docker', ['image', 'rm', IMAGE], { encoding: 'utf8' });
  rmSync(workDir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});

describe.skipIf(real.skip)('a vehicle image of your own, in Python (Docker + ns-3)', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    // Machines with a base image from before Python was added rebuild it here (a no-op otherwise).
    run(['bash', join(ROOT, 'scripts/build-base-image.sh')]);
    const started = Date.now();
    run(['docker', 'build', '-q', '-t', IMAGE, EXAMPLE]);
    console.log(`[custom-vehicle] built ${IMAGE} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    before = emulatedHostState();
  });

  it('drives car1 from the Python image: cruises at its target, stops short of car0, answers every step', async () => {
    const { summary, runDir } = await runScenarioEmulated(writeScenario('python-vehicle', IMAGE), { runsDir });
    console.log(
      `[custom-vehicle] status ${summary.status}${summary.reason ? ` (${summary.reason})` : ''}, min distance ${summary.min_distance_m} m, commands ${summary.timing?.control_commands}, control lag p99 ${summary.timing?.control_lag_p99_ms} ms, phases ${JSON.stringify(summary.timing?.phases_ms)}`,
    );

    expect(summary.runtime).toBe('docker');
    // A loaded machine can make a real-time run invalid; that verdict must then be about timing.
    expect(['completed', 'invalid']).toContain(summary.status);
    if (summary.status === 'invalid') expect(summary.reason).toMatch(/late/);
    expect(summary.collision).toBe(false);

    const rows = csvRows(join(runDir, 'vehicles.csv'));
    const car1 = rows.filter((r) => r.vehicle === 'car1');
    const car0 = rows.filter((r) => r.vehicle === 'car0');
    const speeds = car1.map((r) => Number(r.speed_mps));
    const commanded = car1.map((r) => Number(r.cmd_speed_mps));
    // The commands are the Python car's: cruise first, then 0; the physics followed them.
    expect(commanded[0]).toBe(0); // the start speed, before its first command
    const firstCruise = commanded.indexOf(CRUISE);
    const firstStop = commanded.indexOf(0, firstCruise);
    expect(firstCruise).toBeGreaterThan(0);
    expect(firstStop).toBeGreaterThan(firstCruise);
    expect(commanded.slice(firstStop).every((c) => c === 0)).toBe(true);
    expect(Math.max(...speeds.slice(firstCruise, firstStop))).toBeGreaterThan(CRUISE - 0.05);
    expect(speeds.at(-1)).toBeLessThan(0.01);
    // It began braking when car0 came within the stop distance, and stopped short of it.
    const gapAt = (i: number) => PARKED_X - Number(car1[i].x_m);
    expect(gapAt(firstStop)).toBeLessThan(STOP_DISTANCE + 0.2);
    expect(gapAt(firstStop)).toBeGreaterThan(STOP_DISTANCE - 0.5);
    expect(summary.min_distance_m!).toBeGreaterThan(3);
    // The stock vehicle stayed parked.
    expect(car0.every((r) => Number(r.x_m) === PARKED_X && Number(r.speed_mps) === 0)).toBe(true);

    const events = csvRows(join(runDir, 'events.csv'));
    expect(events.filter((e) => e.vehicle === 'car1').map((e) => e.event)).toEqual(['proximity-stop']);

    // Every physics step (0..steps) was answered with a stamped command, and the simulator counted
    // them, all but the answer to the last step's odometry, which no step applies.
    const log = readFileSync(join(runDir, 'logs', readdirSync(join(runDir, 'logs')).find((f) => f.endsWith('-car1.log'))!), 'utf8');
    const answered = Number(/after (\d+) drive commands/.exec(log)?.[1]);
    expect(answered).toBe(summary.steps + 1);
    expect(summary.timing?.control_commands).toBeGreaterThanOrEqual(answered - 1);

    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });

  it('rejects a vehicle image that is not on this machine, naming its field, before creating anything', async () => {
    const file = writeScenario('absent-image', ABSENT_IMAGE);
    const runsBefore = readdirSync(runsDir);
    const error = await runScenarioEmulated(file, { runsDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserInputError);
    expect((error as UserInputError).message).toBe(`vehicles.car1.image: image "${ABSENT_IMAGE}" is not on this machine`);
    expect((error as UserInputError).hint).toMatch(/docker build/);

    const cli = spawnSync('node', [CLI, 'up', file, '--runtime', 'docker', '--runs-dir', runsDir], {
      encoding: 'utf8',
      env: { ...process.env, CI: 'true' },
    });
    expect(cli.status, cli.stderr).toBe(2);
    expect(cli.stderr).toContain(`vehicles.car1.image: image "${ABSENT_IMAGE}"`);

    expect(readdirSync(runsDir)).toEqual(runsBefore);
    expect(emulatedHostState()).toEqual(before);
  });
});
