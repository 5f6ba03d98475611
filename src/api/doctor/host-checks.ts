import { EnvironmentError } from '../../errors.js';
import type { DockerPort } from '../../host/docker/docker-port.js';
import { type HostEngine, PING_TIMEOUT_MS, pingProblem, SILENT_ENGINE_FIX } from '../../host/docker/host-engines.js';
import type { CommandRunner } from '../../host/exec/command-runner.js';
import { sourceAddressTo } from '../../host/network/route-source.js';
import type { CheckResult } from './types.js';

export interface HostCheckDeps {
  /** This machine's engine, whose images a run ships to the hosts. */
  local: Pick<DockerPort, 'inspectImage'>;
  commands: Pick<CommandRunner, 'run'>;
  /** The images every host with cars needs, base first. */
  images: readonly string[];
  pingMs?: number;
}

/**
 * `cavsim doctor --hosts`: for each host of the file, whether a run can place cars on it: its engine
 * answers, this machine has a route to its tunnel address, and (a note, not a failure) whether the
 * images are there yet as the same build, or the first run ships them. Touches nothing on any host.
 */
export async function checkHosts(engines: readonly HostEngine[], deps: HostCheckDeps): Promise<CheckResult[]> {
  const perHost = await Promise.all(engines.map((e) => checkHost(e, deps)));
  return perHost.flat();
}

async function checkHost({ host, docker }: HostEngine, deps: HostCheckDeps): Promise<CheckResult[]> {
  const name = `Host ${host.name}`;
  const silent = await pingProblem(docker, deps.pingMs ?? PING_TIMEOUT_MS);
  if (silent !== undefined)
    return [{ name, ok: false, detail: `its Docker engine at ${host.engineUrl} does not answer: ${silent}`, fix: SILENT_ENGINE_FIX }];
  if (host.tunnelAddress === undefined)
    return [{ name, ok: true, detail: `${host.engineUrl} answers; the run's own engine: the cars dealt to it stay here` }];
  let route: string;
  try {
    route = await sourceAddressTo(deps.commands, host.tunnelAddress, host.name);
  } catch (err) {
    // the doctor reports what broke rather than throwing; sourceAddressTo's own error carries the fix
    const hint = err instanceof EnvironmentError ? err.hint : undefined;
    return [{ name, ok: false, detail: err instanceof Error ? err.message : String(err), ...(hint ? { fix: hint } : {}) }];
  }
  const engine: CheckResult = {
    name,
    ok: true,
    detail: `${host.engineUrl} answers; VXLAN from ${route} to ${host.tunnelAddress}${host.cores ? `; ${host.cores} cores` : ''}`,
  };
  const missing: string[] = [];
  for (const image of deps.images) {
    const [here, there] = await Promise.all([deps.local.inspectImage(image), docker.inspectImage(image)]);
    if (!here) continue; // `cavsim up` builds it here first; the check of this machine's images says so
    if (there?.id !== here.id) missing.push(`${image} ${there ? 'is another build' : 'is missing'}`);
  }
  const images: CheckResult = missing.length
    ? {
        name: `${name} images`,
        ok: false,
        advisory: true,
        detail: `${missing.join(', ')}: the first run ships ${missing.length === 1 ? 'it' : 'them'} (docker save here, load there; tens of seconds)`,
      }
    : { name: `${name} images`, ok: true, detail: `${deps.images.join(', ')}: the same build as here` };
  return [engine, images];
}
