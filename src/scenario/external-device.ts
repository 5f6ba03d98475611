import { UserInputError } from '../errors.js';
import type { RuntimeName } from './ignored-fields.js';
import type { ResolvedExternal, ResolvedScenario } from './resolved.js';
import type { ScenarioProblem } from './scenario-problem.js';
import { BODY_GATE_DEFAULTS, type ExternalParsed, LISTEN_ADDRESS } from './schema.js';

/** Where a device connects when the scenario does not say: loopback, on a port chosen at start. */
export const DEFAULT_LISTEN = { host: '127.0.0.1', port: 0 };

/** Step 2 for `external:`: the listen address parsed (the schema checked its shape). */
export function resolveExternal(e: ExternalParsed, path: (string | number)[], problems: ScenarioProblem[]): ResolvedExternal {
  let listen = DEFAULT_LISTEN;
  if (e.listen !== undefined) {
    const m = LISTEN_ADDRESS.exec(e.listen)!.groups!;
    const host = m.host === 'localhost' ? '127.0.0.1' : m.host;
    const port = Number(m.port);
    if (host.split('.').some((octet) => Number(octet) > 255))
      problems.push({
        path: [...path, 'listen'],
        message: `${m.host} is not an IPv4 address (each part 0-255), e.g. 127.0.0.1 or 0.0.0.0`,
      });
    if (port > 65535)
      problems.push({ path: [...path, 'listen'], message: `port ${port} is above 65535; use 1024-65535, or 0 for a free one` });
    listen = { host, port };
  }
  const gates = { maxClockOffset: e.maxClockOffset, maxPoseLag: e.maxPoseLag, maxReportGap: e.maxReportGap };
  if (e.role !== 'body') {
    for (const [field, value] of Object.entries(gates)) {
      if (value !== undefined)
        problems.push({
          path: [...path, field],
          message: `${field} is a gate on a physical car's pose reports (role: body); a controller device has none: drop it`,
        });
    }
  }
  const body = e.role === 'body' ? { body: { ...BODY_GATE_DEFAULTS, ...definedOnly(gates) } } : {};
  return {
    role: e.role,
    listen,
    connectTimeout: e.connectTimeout,
    barrier: e.barrier,
    ...(e.from ? { from: e.from } : {}),
    ...(e.v2v ? { v2v: e.v2v } : {}),
    ...body,
  };
}

const definedOnly = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Step 3 for `external:`: a car has one controller, and two devices cannot share an address. */
export function externalProblems(s: ResolvedScenario): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  const taken = new Map<string, string>();
  for (const v of s.vehicles) {
    const e = v.external;
    if (!e) continue;
    const at = (...rest: string[]) => ['vehicles', v.index, ...rest];
    const body = e.role === 'body';
    for (const field of ['command', 'image'] as const) {
      if (v[field] === undefined) continue;
      problems.push({
        path: at(field),
        message: body
          ? `${v.name} is a physical car (role: body): nothing of cavsim's runs for it; drop ${field}`
          : `${v.name}'s controller is the external device; drop ${field} (the code cavsim starts), or drop external`,
      });
    }
    if (v.controller.type !== 'idle') {
      problems.push({
        path: at('controller'),
        message: body
          ? `${v.name} is a physical car (role: body) that moves itself: cavsim never drives it; drop controller`
          : `${v.name} is driven by its external device, not by cavsim's ${v.controller.type} controller; drop controller`,
      });
    }
    if (v.apps.length)
      problems.push({
        path: at('apps'),
        message: body
          ? `${v.name}'s V2V is the physical car's own (its V2V interface), not cavsim's apps; drop apps`
          : `${v.name}'s V2V is its external device's (/${v.name}/v2v/send), not cavsim's apps; drop apps`,
      });
    if (e.listen.port === 0) continue;
    const address = `${e.listen.host}:${e.listen.port}`;
    const other = [...taken.entries()].find(([a]) => a === address || samePortOnAnyAddress(a, address));
    if (other)
      problems.push({
        path: at('external', 'listen'),
        message: `${address} is already vehicles.${other[1]}.external.listen; give each device its own port`,
      });
    else taken.set(address, v.name);
  }
  return problems;
}

const samePortOnAnyAddress = (a: string, b: string) => {
  const [ha, pa] = a.split(':');
  const [hb, pb] = b.split(':');
  return pa === pb && (ha === '0.0.0.0' || hb === '0.0.0.0');
};

/** What `runtime` cannot run yet: refused before anything starts (exit 2), naming the field. */
export function unsupportedExternal(s: ResolvedScenario, runtime: RuntimeName): ScenarioProblem[] {
  return s.vehicles.flatMap((v): ScenarioProblem[] => {
    if (!v.external) return [];
    if (runtime === 'docker') return emulatedProblems(v.index, v.external);
    if (v.external.role === 'body') {
      return [
        {
          path: ['vehicles', v.index, 'external', 'role'],
          message:
            'role: body (a physical car mirrored in the world) needs real time: run it with --runtime docker (the emulated runtime); with --runtime sim use role: controller',
        },
      ];
    }
    return [];
  });
}

/** The emulated runtime listens for a device on a host address and knows it by its own. */
function emulatedProblems(index: number, e: ResolvedExternal): ScenarioProblem[] {
  const at = (...rest: string[]) => ['vehicles', index, 'external', ...rest];
  const problems: ScenarioProblem[] = [];
  if (e.listen.port === 0)
    problems.push({
      path: at('listen'),
      message:
        'the emulated runtime needs the address and port the device connects to, e.g. listen: "10.213.0.1:9091" (an address of this host the device reaches)',
    });
  if (!e.v2v)
    problems.push({
      path: at('v2v'),
      message:
        'every car of an emulated run is on the channel: name the host interface the device\'s V2V is on and its MAC, e.g. v2v: { interface: enp3s0, mac: "02:de:00:00:00:01" }',
    });
  if (e.from?.startsWith('127.'))
    problems.push({
      path: at('from'),
      message: "a device is another computer (or a network namespace), not this host's loopback: give its own address, e.g. 10.213.0.2",
    });
  if (!e.from)
    problems.push({
      path: at('from'),
      message: "the emulated runtime needs the device's own address, e.g. from: 10.213.0.2: only connections from it speak for this car",
    });
  return problems;
}

/** What a run of `runtime` should say about its external devices (the summary keeps it in `warnings`). */
export function externalNotes(s: ResolvedScenario, runtime: RuntimeName): ScenarioProblem[] {
  if (runtime !== 'sim') return [];
  return s.vehicles.flatMap((v): ScenarioProblem[] => {
    if (!v.external || v.external.barrier) return [];
    const at = (...rest: string[]) => ['vehicles', v.index, ...rest];
    const notes: ScenarioProblem[] = [
      {
        path: at('external', 'barrier'),
        message: `false: ${v.name}'s device runs without the barrier, at real-time pace, and its car takes the last command received when each tick is due; the result depends on this host's and the device's timing and is not reproducible`,
      },
    ];
    if (v.compute.model !== 'none')
      notes.push({
        path: at('compute', 'model'),
        message: `ignored without the barrier: the device's real answer time is its compute time (its commands act when they arrive)`,
      });
    return notes;
  });
}

/** For a scenario resolved earlier (a replay): the same refusal as `loadScenario` gives, as one error. */
export function refuseUnsupportedExternal(s: ResolvedScenario, runtime: RuntimeName): void {
  const problems = unsupportedExternal(s, runtime);
  if (!problems.length) return;
  const lines = problems.map(
    (p) => `${p.path.map((seg, i) => (i === 1 ? (s.vehicles[seg as number]?.name ?? seg) : seg)).join('.')}: ${p.message}`,
  );
  const body = s.vehicles.some((v) => v.external?.role === 'body');
  throw new UserInputError(
    lines[0],
    lines.slice(1),
    runtime === 'docker'
      ? 'run it with --runtime sim'
      : body
        ? 'run it with --runtime docker, or use role: controller'
        : 'use role: controller',
  );
}
