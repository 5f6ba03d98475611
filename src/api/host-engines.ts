import { connectDocker } from '../host/docker/dockerode-port.js';
import { type HostEngine, hostEngines, pingHosts } from '../host/docker/host-engines.js';
import type { HostsFile } from '../host/hosts-file/load-hosts-file.js';

/** The real DockerPort of every host in a hosts file (TLS or SSH as the file says). No command uses them yet (issue 53). */
export const connectHostEngines = (file: HostsFile): HostEngine[] => hostEngines(file, (options) => connectDocker(options));

/** Connects to every host of the file and checks that each engine answers, naming those that do not. */
export async function reachableHostEngines(file: HostsFile): Promise<HostEngine[]> {
  const engines = connectHostEngines(file);
  await pingHosts(engines);
  return engines;
}
