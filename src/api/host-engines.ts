import { EnvironmentError, UserInputError } from '../errors.js';
import { connectDocker } from '../host/docker/dockerode-port.js';
import { type HostEngine, hostEngines, pingHosts } from '../host/docker/host-engines.js';
import type { HostsFile } from '../host/hosts-file/load-hosts-file.js';
import type { RemoteHost } from '../runtime/emulated/emulated-deps.js';

/** The real DockerPort of every host in a hosts file (TLS or SSH as the file says). */
export const connectHostEngines = (file: HostsFile): HostEngine[] => hostEngines(file, (options) => connectDocker(options));

/** Connects to every host of the file and checks that each engine answers, naming those that do not. */
export async function reachableHostEngines(file: HostsFile): Promise<HostEngine[]> {
  const engines = connectHostEngines(file);
  await pingHosts(engines);
  return engines;
}

/**
 * The hosts of `cavsim up --hosts FILE` for a run: every engine pinged first. A host that does not
 * answer is bad input to the command (exit 2, named with the fix) and nothing is created anywhere.
 */
export async function remoteHosts(file: HostsFile): Promise<{ file: string; hosts: RemoteHost[] }> {
  const engines = await reachableHostEngines(file).catch((err: unknown) => {
    if (err instanceof EnvironmentError) throw new UserInputError(`${file.file}: ${err.message}`, [], err.hint);
    throw err;
  });
  return {
    file: file.file,
    hosts: engines.map((e, index) => ({
      name: e.host.name,
      index,
      ...(e.host.tunnelAddress !== undefined ? { tunnelAddress: e.host.tunnelAddress } : {}),
      ...(e.host.cores !== undefined ? { cores: e.host.cores } : {}),
      docker: e.docker,
    })),
  };
}
