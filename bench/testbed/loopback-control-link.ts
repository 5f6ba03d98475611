/**
 * Bench scaffolding: one emulated run's control link without Docker. A build's simulator and
 * vehicle programs (its dist/, launched as its vehicle image launches them) run as host processes
 * on loopback; the bench plays the orchestrator and reads every process's CPU time from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { RunSummary } from '../../src/run/summary.js';
import { LIGHT_CAR_BUILT, lightControllerText, notLight } from '../../src/runtime/emulated/light-car.js';
import { epochNs } from '../../src/runtime/emulated/v2v/wire.js';
import { RunControl } from '../../src/runtime/rosbridge/run-control.js';
import type { ResolvedScenario } from '../../src/scenario/resolved.js';

export interface ControlLinkFigures {
  status: string;
  lateCommandFraction: number;
  controlLagP99Ms: number;
  /** CPU time (user + system) of the simulator per physics step [us]. */
  simulatorCpuPerStepUs: number;
  /** CPU time of one vehicle process per control tick [us], averaged over the cars. */
  vehicleCpuPerTickUs: number;
}

const CLOCK_TICKS_PER_S = 100;

/** The vehicle image's CMD up to `node`: what the build's containers run the vehicle program under. */
export function vehicleLauncher(buildRoot: string): string[] {
  const dockerfile = readFileSync(join(buildRoot, 'containers/vehicle/Dockerfile'), 'utf8');
  const cmd = JSON.parse(/^CMD\s+(\[.*\])\s*$/m.exec(dockerfile)?.[1] ?? '["node"]') as string[];
  return cmd.slice(0, cmd.indexOf('node'));
}

/**
 * `light`: cars run the build's light-car program where they may (src/runtime/emulated/light-car.ts),
 * as an emulated run starts them.
 */
export async function runControlLink(
  buildRoot: string,
  scenario: ResolvedScenario,
  opts: { light?: boolean } = {},
): Promise<ControlLinkFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-control-link-'));
  const children: ChildProcess[] = [];
  try {
    const runDir = prepareRunDir(dir, scenario);
    const program = (name: string) => join(buildRoot, 'dist/runtime/emulated/containers', name);
    const sim = spawnProgram([], program('simulator-main.js'), {
      CAVSIM_RUN_DIR: runDir,
      CAVSIM_BIND: '127.0.0.1:0',
      CAVSIM_RUN_ID: 'bench',
    });
    children.push(sim);
    const url = `ws://127.0.0.1:${await listeningPort(sim)}`;
    const names = scenario.vehicles.map((v) => v.name);
    const ports = await freeUdpPorts(names.length);
    const launcher = vehicleLauncher(buildRoot);
    const cars = scenario.vehicles.map((v, i) =>
      opts.light && notLight(scenario, v) === undefined
        ? spawn(join(buildRoot, LIGHT_CAR_BUILT), [], {
            env: { CAVSIM_VEHICLE: v.name, CAVSIM_SIM_URL: url, CAVSIM_LIGHT_CONTROLLER: lightControllerText(scenario, v) },
            stdio: ['ignore', 'ignore', 'ignore'],
          })
        : spawnProgram(launcher, program('vehicle-main.js'), {
            CAVSIM_RUN_DIR: runDir,
            CAVSIM_VEHICLE: v.name,
            CAVSIM_SIM_URL: url,
            CAVSIM_V2V_BIND: `127.0.0.1:${ports[i]}`,
            CAVSIM_V2V_PEERS: JSON.stringify(Object.fromEntries(names.flatMap((n, j) => (j === i ? [] : [[n, `127.0.0.1:${ports[j]}`]])))),
          }),
    );
    children.push(...cars);
    const control = await RunControl.connect(url, { timeoutMs: 120_000 });
    const died = new Promise<never>((_, fail) =>
      children.forEach((c, i) =>
        c.once('exit', (code) => fail(new Error(`${i === 0 ? 'the simulator' : names[i - 1]} exited (${code}) before the run started`))),
      ),
    );
    died.catch(() => {}); // once the run has started, they are meant to exit
    await Promise.race([control.waitForReady(), died]);
    const startCpu = children.map((c) => cpuTicks(c.pid!) ?? 0);
    const lastCpu = [...startCpu];
    const poll = setInterval(() => children.forEach((c, i) => (lastCpu[i] = cpuTicks(c.pid!) ?? lastCpu[i])), 100);
    control.start(epochNs() + 200_000_000n);
    await control.waitForStopped();
    clearInterval(poll);
    await Promise.all(children.map(exited));
    await control.close();
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
    const timing = (summary.timing ?? {}) as Record<string, number>;
    const steps = summary.steps;
    const used = (i: number) => (lastCpu[i] - startCpu[i]) / CLOCK_TICKS_PER_S;
    const carSeconds = cars.reduce((sum, _, i) => sum + used(i + 1), 0);
    return {
      status: summary.status,
      lateCommandFraction: timing.late_command_fraction ?? NaN,
      controlLagP99Ms: timing.control_lag_p99_ms ?? NaN,
      simulatorCpuPerStepUs: (used(0) / steps) * 1e6,
      vehicleCpuPerTickUs: (carSeconds / cars.length / steps) * 1e6,
    };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

function prepareRunDir(dir: string, scenario: ResolvedScenario): string {
  const runDir = join(dir, 'run');
  mkdirSync(join(runDir, 'map'), { recursive: true });
  writeFileSync(join(runDir, 'scenario.resolved.json'), JSON.stringify(scenario));
  const { mapFile } = scenario;
  // a generated road map has no file: the simulator makes it from the scenario
  if (mapFile === undefined) return runDir;
  copyFileSync(mapFile, join(runDir, 'map', basename(mapFile)));
  const image = /^image:\s*(\S+)/m.exec(readFileSync(mapFile, 'utf8'))?.[1];
  if (image) copyFileSync(resolve(dirname(mapFile), image), join(runDir, 'map', basename(image)));
  return runDir;
}

function spawnProgram(launcher: string[], script: string, env: Record<string, string>): ChildProcess {
  const argv = [...launcher, process.execPath, script];
  return spawn(argv[0], argv.slice(1), { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
}

function listeningPort(sim: ChildProcess): Promise<number> {
  return new Promise((ok, fail) => {
    createInterface({ input: sim.stdout! }).on('line', (line) => {
      const m = JSON.parse(line) as { event?: string; port?: number };
      if (m.event === 'listening' && m.port) ok(m.port);
    });
    sim.once('exit', (code) => fail(new Error(`simulator exited ${code} before listening`)));
  });
}

/**
 * n UDP ports that are free now, below the kernel's ephemeral range: a port merely found free there
 * could be handed to another socket (a vehicle's own, say) before its vehicle binds it.
 */
async function freeUdpPorts(n: number): Promise<number[]> {
  const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  const low = Math.max(1024, ephemeralLow - 8192);
  const ports: number[] = [];
  for (let port = low + Math.floor(Math.random() * 4096); ports.length < n && port < ephemeralLow; port++) {
    if (await udpPortFree(port)) ports.push(port);
  }
  if (ports.length < n) throw new Error(`found only ${ports.length} of ${n} free UDP ports below ${ephemeralLow}`);
  return ports;
}

function udpPortFree(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const s = createSocket('udp4');
    s.once('error', () => ok(false));
    s.bind(port, '127.0.0.1', () => s.close(() => ok(true)));
  });
}

/** utime + stime of a live process, in clock ticks; undefined once it is gone. */
function cpuTicks(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

const exited = (c: ChildProcess) => new Promise<void>((ok) => (c.exitCode !== null ? ok() : c.once('exit', () => ok())));
