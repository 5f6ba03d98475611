import { EnvironmentError } from '../../errors.js';
import { type EngineOptions, engineOptions } from '../hosts-file/engine-options.js';
import type { HostEntry, HostsFile } from '../hosts-file/load-hosts-file.js';
import type { DockerPort } from './docker-port.js';

/** One host of a hosts file and the port to its Docker engine. */
export interface HostEngine {
  host: HostEntry;
  docker: DockerPort;
}

/**
 * A DockerPort per host of a checked hosts file, each through the loader's engine options (TLS files
 * read here). `connect` is the engine port's constructor, so tests pass fakes.
 */
export function hostEngines(file: HostsFile, connect: (options: EngineOptions) => DockerPort): HostEngine[] {
  return file.hosts.map((host) => ({ host, docker: connect(engineOptions(host)) }));
}

/** How long a host's engine has to answer a ping before it is named as not answering. */
export const PING_TIMEOUT_MS = 10_000;

/**
 * Pings every host's engine at once; resolves when all answer, else throws one EnvironmentError that
 * names every host that did not, with what it said and the fix (nothing is created on any host).
 */
export async function pingHosts(engines: readonly HostEngine[], timeoutMs = PING_TIMEOUT_MS): Promise<void> {
  const outcomes = await Promise.all(
    engines.map(async ({ host, docker }) => {
      const problem = await pingProblem(docker, timeoutMs);
      return problem === undefined ? undefined : `${host.name} (${host.engineUrl}): ${problem}`;
    }),
  );
  const silent = outcomes.filter((o): o is string => o !== undefined);
  if (!silent.length) return;
  throw new EnvironmentError(
    `${silent.length === 1 ? "a host's Docker engine does not answer" : `${silent.length} hosts' Docker engines do not answer`}: ${silent.join('; ')}`,
    SILENT_ENGINE_FIX,
  );
}

/** What to do about a host whose engine does not answer. */
export const SILENT_ENGINE_FIX =
  'on each host named, start the engine listening where the hosts file says (dockerd -H tcp://0.0.0.0:2376 --tlsverify ..., docs/multi-host.md "Set-up"), check the address, the port and the TLS files, then run again; for local hosts: sudo bash scripts/local-hosts.sh start N';

/** Why the engine did not answer a ping within `withinMs` (its error's first line, or the wait), or undefined when it did. */
export async function pingProblem(docker: Pick<DockerPort, 'ping'>, withinMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<string>((r) => {
    timer = setTimeout(() => r(`no answer in ${withinMs / 1000} s`), withinMs);
  });
  const answer = docker.ping().then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err.message.split('\n')[0] : String(err)),
  );
  try {
    return await Promise.race([answer, waited]);
  } finally {
    clearTimeout(timer);
  }
}
