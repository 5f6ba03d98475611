import { execFileSync } from 'node:child_process';

/**
 * A device stand-in (ENVIRONMENT.md): a network namespace with a control veth (a /30 to the host)
 * and a V2V veth whose host end a run joins to its bridge. The names carry a tag of the caller's.
 */
export interface NamespaceDevice {
  netns: string;
  controlHost: string;
  controlDevice: string;
  v2vHost: string;
  v2vDevice: string;
  hostIp: string;
  deviceIp: string;
  mac: string;
}

export const ip = (...args: string[]) => execFileSync('ip', args, { encoding: 'utf8' });

export function quietly(cmd: string, args: string[]): void {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
  } catch {
    /* already gone */
  }
}

export function createNamespaceDevice(d: NamespaceDevice): void {
  ip('netns', 'add', d.netns);
  ip('link', 'add', 'name', d.controlHost, 'type', 'veth', 'peer', 'name', d.controlDevice);
  ip('link', 'add', 'name', d.v2vHost, 'type', 'veth', 'peer', 'name', d.v2vDevice);
  execFileSync('sysctl', ['-q', '-w', `net/ipv6/conf/${d.v2vHost}/disable_ipv6=1`]);
  // A device's NIC is up before the run, as it stays after it.
  ip('link', 'set', 'dev', d.v2vHost, 'up');
  ip('link', 'set', 'dev', d.controlDevice, 'netns', d.netns);
  ip('link', 'set', 'dev', d.v2vDevice, 'netns', d.netns);
  ip('addr', 'add', `${d.hostIp}/30`, 'dev', d.controlHost);
  ip('link', 'set', 'dev', d.controlHost, 'up');
  ip('-n', d.netns, 'addr', 'add', `${d.deviceIp}/30`, 'dev', d.controlDevice);
  ip('-n', d.netns, 'link', 'set', 'dev', d.controlDevice, 'up');
  ip('-n', d.netns, 'link', 'set', 'dev', d.v2vDevice, 'address', d.mac);
  execFileSync('ip', ['netns', 'exec', d.netns, 'sysctl', '-q', '-w', `net/ipv6/conf/${d.v2vDevice}/disable_ipv6=1`]);
  ip('-n', d.netns, 'link', 'set', 'dev', d.v2vDevice, 'up');
  ip('-n', d.netns, 'link', 'set', 'dev', 'lo', 'up');
}

export function removeNamespaceDevice(d: NamespaceDevice): void {
  for (const link of [d.controlHost, d.v2vHost]) quietly('ip', ['link', 'delete', 'dev', link]);
  quietly('ip', ['netns', 'delete', d.netns]);
}
