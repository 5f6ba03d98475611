import { spawnSync } from 'node:child_process';
import { snapshotHost } from '../hostnet/support/snapshot.js';

/** What an emulated run may touch on the host: links, namespaces, rules, our processes, cavsim containers and networks. */
export function emulatedHostState() {
  const docker = (args: string[]) => spawnSync('docker', args, { encoding: 'utf8' }).stdout;
  return {
    ...snapshotHost(['channel-tap', '/opt/cavsim/']),
    containers: docker(['ps', '-a', '--filter', 'label=cavsim.run', '--format', '{{.Names}}']),
    networks: docker(['network', 'ls', '--filter', 'label=cavsim.run', '--format', '{{.Name}}']),
  };
}
