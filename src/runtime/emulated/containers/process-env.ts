import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gridFromJson } from '../../../core/map/grid-json.js';
import type { OccupancyGrid } from '../../../core/map/occupancy-grid.js';
import { UserInputError } from '../../../errors.js';
import { RUN_FILES } from '../../../run/run-files.js';
import type { ResolvedScenario } from '../../../scenario/resolved.js';

export interface HostPort {
  host: string;
  port: number;
}

export interface SimulatorEnv {
  runDir: string;
  runId: string;
  /** undefined: `$CAVSIM_RUN_DIR/map/<basename of scenario.mapFile>`, known once the scenario is read. */
  mapFile?: string;
  bind: HostPort;
  clients?: Record<string, string>;
  /** The V2V relays' `address:port`, from which alone their cars' V2V reports are taken. */
  v2vRelays?: string[];
}

export interface VehicleEnv {
  runDir: string;
  vehicle: string;
  simUrl: string;
  peers: { name: string; address: string; port: number }[];
  bind: HostPort;
  connectTimeoutMs: number;
}

import { CONTROL_PORT as DEFAULT_CONTROL_PORT, V2V_PORT as DEFAULT_V2V_PORT } from '../../../ports.js';

type Env = Record<string, string | undefined>;

export function readSimulatorEnv(env: Env): SimulatorEnv {
  const runDir = required(env, 'CAVSIM_RUN_DIR');
  return {
    runDir,
    runId: env.CAVSIM_RUN_ID || basename(runDir),
    ...(env.CAVSIM_MAP ? { mapFile: env.CAVSIM_MAP } : {}),
    bind: parseHostPort(env.CAVSIM_BIND || `0.0.0.0:${DEFAULT_CONTROL_PORT}`, 'CAVSIM_BIND', DEFAULT_CONTROL_PORT),
    ...(env.CAVSIM_CLIENTS ? { clients: parseClients(env.CAVSIM_CLIENTS) } : {}),
    ...(env.CAVSIM_V2V_RELAYS ? { v2vRelays: parseRelays(env.CAVSIM_V2V_RELAYS) } : {}),
  };
}

export function defaultMapFile(runDir: string, scenarioMapFile: string): string {
  return join(runDir, 'map', basename(scenarioMapFile));
}

export function readVehicleEnv(env: Env): VehicleEnv {
  const simUrl = required(env, 'CAVSIM_SIM_URL');
  if (!/^wss?:\/\//.test(simUrl)) throw new UserInputError('CAVSIM_SIM_URL must be a ws:// URL', [`got ${simUrl}`]);
  const timeout = env.CAVSIM_CONNECT_TIMEOUT_MS ? Number(env.CAVSIM_CONNECT_TIMEOUT_MS) : 30_000;
  if (!Number.isFinite(timeout) || timeout < 0) throw new UserInputError('CAVSIM_CONNECT_TIMEOUT_MS must be a number of milliseconds');
  return {
    runDir: required(env, 'CAVSIM_RUN_DIR'),
    vehicle: required(env, 'CAVSIM_VEHICLE'),
    simUrl,
    peers: parsePeers(env.CAVSIM_V2V_PEERS ?? '{}'),
    bind: parseHostPort(env.CAVSIM_V2V_BIND || `0.0.0.0:${DEFAULT_V2V_PORT}`, 'CAVSIM_V2V_BIND', DEFAULT_V2V_PORT),
    connectTimeoutMs: timeout,
  };
}

/** `{"car1": "10.210.7.3"}` or `{"car1": "127.0.0.1:7401"}`; the port defaults to V2V_PORT. */
export function parsePeers(text: string): VehicleEnv['peers'] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UserInputError('CAVSIM_V2V_PEERS is not JSON', [text]);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new UserInputError('CAVSIM_V2V_PEERS must be a JSON object {name: "ip[:port]"}');
  return Object.entries(raw).map(([name, value]) => {
    if (typeof value !== 'string') throw new UserInputError(`CAVSIM_V2V_PEERS.${name} must be a string "ip[:port]"`);
    const { host, port } = parseHostPort(value, `CAVSIM_V2V_PEERS.${name}`, DEFAULT_V2V_PORT);
    return { name, address: host, port };
  });
}

export function parseHostPort(text: string, what: string, defaultPort: number): HostPort {
  const m = /^([^:\s]+)(?::(\d{1,5}))?$/.exec(text.trim());
  const port = m?.[2] === undefined ? defaultPort : Number(m[2]);
  if (!m || port > 65535) throw new UserInputError(`${what} must be host[:port]`, [`got "${text}"`]);
  return { host: m[1], port };
}

function required(env: Env, name: string): string {
  const v = env[name];
  if (!v) throw new UserInputError(`${name} is not set`, [], 'the orchestrator sets it; see docs/control-protocol.md');
  return v;
}

/** The scenario the orchestrator wrote into the run folder (`scenario.resolved.json`). */
export function readResolvedScenario(runDir: string): ResolvedScenario {
  const file = join(runDir, RUN_FILES.scenario);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new UserInputError(`${file} cannot be read`, [], 'CAVSIM_RUN_DIR must be the mounted run folder holding scenario.resolved.json');
  }
  try {
    return JSON.parse(text) as ResolvedScenario;
  } catch {
    throw new UserInputError(`${file} is not JSON`);
  }
}

/** The map's walls as the host wrote them for the car's apps (a CPM): JSON, so the container needs no YAML or image decoder. */
export function readMapGrid(runDir: string): OccupancyGrid {
  const file = join(runDir, RUN_FILES.mapGrid);
  try {
    return gridFromJson(JSON.parse(readFileSync(file, 'utf8')));
  } catch (err) {
    throw new UserInputError(
      `${file} cannot be read as the map's grid: ${(err as Error).message}`,
      [],
      'the host writes it for cars whose apps look at the map',
    );
  }
}

/** `CAVSIM_CLIENTS`: `{"10.211.7.1": "orchestrator", "10.211.7.10": "car0"}`. */
function parseClients(text: string): Record<string, string> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UserInputError('CAVSIM_CLIENTS is not JSON', [text]);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || Object.values(raw).some((v) => typeof v !== 'string')) {
    throw new UserInputError('CAVSIM_CLIENTS must be a JSON object {address: name}');
  }
  return raw as Record<string, string>;
}

/** `CAVSIM_V2V_RELAYS`: `["10.211.7.13:907"]`. */
function parseRelays(text: string): string[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UserInputError('CAVSIM_V2V_RELAYS is not JSON', [text]);
  }
  if (!Array.isArray(raw) || raw.some((v) => typeof v !== 'string' || !/:\d+$/.test(v)))
    throw new UserInputError('CAVSIM_V2V_RELAYS must be a JSON array of "address:port"');
  return raw as string[];
}
