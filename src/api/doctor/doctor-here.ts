import { CAVSIM_IMAGES, DEFAULT_BASE_IMAGE } from '../../host/docker/images.js';
import { remoteCarImages } from '../../host/docker/ship-image.js';
import { resolveHostsFile } from '../../host/hosts-file/load-hosts-file.js';
import { defaultRunsDir } from '../../run/run-folder.js';
import { connectHostEngines } from '../host-engines.js';
import { realHostPorts } from '../host-ports.js';
import { runDoctor } from './doctor.js';
import { checkHosts } from './host-checks.js';
import { createHostDoctorPorts } from './host-ports.js';
import type { CheckResult } from './types.js';

/**
 * `cavsim doctor` on this machine, with its real Docker engine and commands; with a hosts file
 * (`--hosts`, else `$CAVSIM_HOSTS`), each of its hosts too. A bad hosts file is refused before any check.
 */
export async function doctorThisHost(opts: { hostsFile?: string } = {}): Promise<CheckResult[]> {
  const hosts = await resolveHostsFile(opts.hostsFile);
  const { docker, commands } = realHostPorts();
  const here = await runDoctor(createHostDoctorPorts({ docker, commands, runsDir: defaultRunsDir() }));
  if (!hosts) return here;
  const images = remoteCarImages(CAVSIM_IMAGES.vehicle, DEFAULT_BASE_IMAGE);
  return [...here, ...(await checkHosts(connectHostEngines(hosts), { local: docker, commands, images }))];
}
