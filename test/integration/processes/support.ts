import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { RunSummary } from '../../../src/run/summary.js';
import { LIGHT_CAR_BUILT, lightControllerText, notLight } from '../../../src/runtime/emulated/light-car.js';
import { epochNs } from '../../../src/runtime/emulated/v2v/wire.js';
import type { SimulatorStatus } from '../../../src/runtime/rosbridge/control-topics.js';
import { RunControl } from '../../../src/runtime/rosbridge/run-control.js';
import type { ResolvedScenario } from '../../../src/scenario/resolved.js';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Compiles the two container entry points (and what they import) into node_modules/.cache, so
 * the test runs the same JavaScript a container runs, independently of the rest of the tree.
 */
export function buildEntryPoints(): { simulatorMain: string; vehicleMain: string } {
  const outDir = join(repoRoot, 'node_modules/.cache/cavsim-processes-it');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const entries = ['src/runtime/emulated/containers/simulator-main.ts', 'src/runtime/emulated/containers/vehicle-main.ts'];
  execFileSync(
    process.execPath,
    [
      tsc,
      '--outDir',
      outDir,
      '--rootDir',
      join(repoRoot, 'src'),
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--target',
      'ES2022',
      '--lib',
      'ES2023',
      '--types',
      'node',
      '--strict',
      '--skipLibCheck',
      '--esModuleInterop',
      '--resolveJsonModule',
      ...entries,
    ],
    { cwd: repoRoot, stdio: 'pipe' },
  );
  const simulatorMain = join(outDir, 'runtime/emulated/containers/simulator-main.js');
  const vehicleMain = join(outDir, 'runtime/emulated/containers/vehicle-main.js');
  for (const f of [simulatorMain, vehicleMain]) if (!existsSync(f)) throw new Error(`build did not produce ${f}`);
  // The compiled files are ESM: Node needs "type": "module" next to them to load them as such.
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}\n');
  return { simulatorMain, vehicleMain };
}

/** A run folder as the orchestrator leaves it: scenario.resolved.json and the map under map/. */
export function prepareRunDir(scenario: ResolvedScenario): string {
  const runDir = mkdtempSync(join(tmpdir(), 'cavsim-proc-'));
  writeFileSync(join(runDir, 'scenario.resolved.json'), JSON.stringify(scenario, null, 2));
  mkdirSync(join(runDir, 'map'));
  const mapYaml = scenario.mapFile;
  // a generated road map has no file: the simulator makes it from the scenario
  if (mapYaml === undefined) return runDir;
  copyFileSync(mapYaml, join(runDir, 'map', basename(mapYaml)));
  const image = /^image:\s*(\S+)/m.exec(readFileSync(mapYaml, 'utf8'))?.[1];
  if (image) copyFileSync(resolve(dirname(mapYaml), image), join(runDir, 'map', basename(image)));
  return runDir;
}

/** UDP ports that were free a moment ago (bound, then released). */
export async function freeUdpPorts(n: number): Promise<number[]> {
  const sockets = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createSocket>>((ok) => {
          const s = createSocket('udp4');
          s.bind(0, '127.0.0.1', () => ok(s));
        }),
    ),
  );
  const ports = sockets.map((s) => s.address().port);
  await Promise.all(sockets.map((s) => new Promise<void>((ok) => s.close(() => ok()))));
  return ports;
}

export interface Child {
  process: ChildProcess;
  stderr: () => string;
  exit: Promise<number | null>;
}

export function spawnNode(script: string, env: Record<string, string>): Child {
  return spawnChild([process.execPath, script], env);
}

/** The build's light-car program (`npm run build` makes it). */
export function spawnLightCar(env: Record<string, string>): Child {
  const program = join(repoRoot, LIGHT_CAR_BUILT);
  if (!existsSync(program))
    throw new Error(`${program} is missing: run \`npm run build\` (it needs a C compiler; scripts/setup.sh installs one)`);
  return spawnChild([program], env);
}

function spawnChild(argv: string[], env: Record<string, string>): Child {
  const child = spawn(argv[0], argv.slice(1), { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exit = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  return { process: child, stderr: () => stderr, exit };
}

/** Starts simulator-main on an ephemeral loopback port and returns it once it listens. */
export async function spawnSimulator(
  script: string,
  runDir: string,
  extraEnv: Record<string, string> = {},
): Promise<Child & { url: string }> {
  const child = spawnNode(script, { CAVSIM_RUN_DIR: runDir, CAVSIM_BIND: '127.0.0.1:0', ...extraEnv });
  const lines = createInterface({ input: child.process.stdout! });
  const port = await new Promise<number>((ok, fail) => {
    lines.on('line', (l) => {
      const m = JSON.parse(l) as { event: string; port: number };
      if (m.event === 'listening') ok(m.port);
    });
    void child.exit.then((code) => fail(new Error(`simulator exited ${code} before listening: ${child.stderr()}`)));
  });
  return { ...child, url: `ws://127.0.0.1:${port}` };
}

export interface LoopbackRun {
  runDir: string;
  summary: RunSummary;
  /** The simulator's status when every vehicle had reported ready, and its last one. */
  ready: SimulatorStatus;
  stopped: SimulatorStatus;
  simExit: number | null;
  sim: Child;
  vehicles: { name: string; child: Child; exit: number | null }[];
}

/**
 * One run of the scenario through the real simulator and vehicle programs on loopback, with the
 * orchestrator's part done here: wait until every vehicle is ready, start at a common t0, wait for
 * every process to exit. `beforeStart` gets the control link's URL to attach observers of its own.
 */
export async function runOnLoopback(
  entry: { simulatorMain: string; vehicleMain: string },
  scenario: ResolvedScenario,
  opts: {
    runId: string;
    beforeStart?: (url: string) => Promise<void>;
    /**
     * Each vehicle's V2V socket on an address of its own (127.0.0.11, .12, ...), as each container
     * has its own eth1: a receiver then knows every peer by its address, so the provenance check
     * tells three or more cars apart (on one shared address it can name only one peer).
     */
    addressPerCar?: boolean;
    /** Cars that may run the light-car program (dist/light-car, `npm run build`) run it, as an emulated run starts them. */
    light?: boolean;
  },
): Promise<LoopbackRun> {
  const runDir = prepareRunDir(scenario);
  const sim = await spawnSimulator(entry.simulatorMain, runDir, { CAVSIM_RUN_ID: opts.runId });
  const names = scenario.vehicles.map((v) => v.name);
  const ports = await freeUdpPorts(names.length);
  const address = (i: number) => (opts.addressPerCar ? `127.0.0.${11 + i}` : '127.0.0.1');
  const v2vEnv = (i: number) => ({
    CAVSIM_V2V_BIND: `${address(i)}:${ports[i]}`,
    CAVSIM_V2V_PEERS: JSON.stringify(Object.fromEntries(names.flatMap((n, j) => (j === i ? [] : [[n, `${address(j)}:${ports[j]}`]])))),
  });
  const vehicles = scenario.vehicles.map((v, i) => ({
    name: v.name,
    child:
      opts.light && notLight(scenario, v) === undefined
        ? spawnLightCar({
            ...v2vEnv(i),
            CAVSIM_VEHICLE: v.name,
            CAVSIM_SIM_URL: sim.url,
            CAVSIM_LIGHT_CONTROLLER: lightControllerText(scenario, v),
          })
        : spawnNode(entry.vehicleMain, { ...v2vEnv(i), CAVSIM_RUN_DIR: runDir, CAVSIM_VEHICLE: v.name, CAVSIM_SIM_URL: sim.url }),
  }));
  const control = await RunControl.connect(sim.url, { timeoutMs: 5000 });
  const ready = await control.waitForReady();
  await opts.beforeStart?.(sim.url);
  control.start(epochNs() + 200_000_000n);
  const stopped = control.waitForStopped();
  const [simExit, ...exits] = await Promise.all([sim.exit, ...vehicles.map((v) => v.child.exit)]);
  const last = await stopped;
  await control.close();
  const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
  return { runDir, summary, ready, stopped: last, simExit, sim, vehicles: vehicles.map((v, i) => ({ ...v, exit: exits[i] })) };
}
