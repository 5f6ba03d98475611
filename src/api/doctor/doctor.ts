import { kindsWhere } from '../../scenario/channel-kinds.js';
import {
  type Check,
  checkBaseImage,
  checkCavsimImages,
  checkDockerEngine,
  checkFastProcessStart,
  checkIptables,
  checkLeftovers,
  checkNs3,
  checkPrivileges,
  checkTapCreator,
  checkTun,
} from './checks.js';
import type { CheckResult, DoctorOptions, DoctorPorts } from './types.js';

const HOST_CHECKS: readonly [string, Check][] = [
  ['Privileges', checkPrivileges],
  ['iptables', checkIptables],
  ['TUN device', checkTun],
  ['ns-3 development files', checkNs3],
  ['TapBridge tap-creator helper', checkTapCreator],
  ['Fast ns-3 start (posix_spawn)', checkFastProcessStart],
  ['Leftovers from earlier runs', checkLeftovers],
];
const IMAGE_CHECKS: readonly [string, Check][] = [
  ['Base image', checkBaseImage],
  ['cavsim images', checkCavsimImages],
];

/**
 * Checks every prerequisite of an emulated run and says how to fix each failure. Never throws:
 * a check that breaks reports its error as its detail.
 */
export async function runDoctor(ports: DoctorPorts, options: DoctorOptions = {}): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const engine = await guarded('Docker engine', checkDockerEngine, ports, options);
  results.push(engine);
  for (const [name, check] of IMAGE_CHECKS) {
    results.push(
      engine.ok
        ? await guarded(name, check, ports, options)
        : { name, ok: false, detail: 'not checked: Docker engine not reachable', fix: engine.fix },
    );
  }
  for (const [name, check] of HOST_CHECKS) results.push(await guarded(name, check, ports, options));
  return results;
}

/** What each runtime can do on this host, read off the checks. */
export interface RuntimeReadiness {
  /** `cavsim up` in Docker: ready when no check fails (advisory ones do not count). */
  docker: { ready: boolean; blocking: string[] };
  /** `--runtime sim` needs nothing but Node.js; ns-3 decides its channel engine and whether wifi-80211p is there. */
  sim: { ready: true; engine: 'ns3' | 'builtin'; channels: string[] };
}

export function runtimeReadiness(results: readonly CheckResult[]): RuntimeReadiness {
  const blocking = results.filter((r) => !r.ok && !r.advisory).map((r) => r.name);
  const ns3 = results.some((r) => r.name === 'ns-3 development files' && r.ok);
  return {
    docker: { ready: blocking.length === 0, blocking },
    sim: { ready: true, engine: ns3 ? 'ns3' : 'builtin', channels: kindsWhere((k) => ns3 || k.builtin) },
  };
}

/** True when nothing blocks `cavsim up` (advisory results do not). */
export function doctorPassed(results: readonly CheckResult[]): boolean {
  return results.every((r) => r.ok || r.advisory);
}

async function guarded(name: string, check: Check, ports: DoctorPorts, options: DoctorOptions): Promise<CheckResult> {
  try {
    return await check(ports, options);
  } catch (err) {
    return { name, ok: false, detail: `check failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}
