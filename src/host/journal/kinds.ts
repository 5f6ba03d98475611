/**
 * Every journal kind cavsim writes, in one place; each module that records or undoes entries
 * imports its kinds from here. The strings are on disk in the journals of past and live runs
 * (teardown and doctor read them): never change a value.
 */

/** Docker resources; `undo` is `{ name, runId }` (src/host/docker/journaled.ts). */
export const DOCKER_KINDS = {
  container: 'docker-container',
  network: 'docker-network',
} as const;

/** Host networking (src/host/network/journaled-ops.ts records, src/host/network/undoers.ts undoes). */
export const HOSTNET_KINDS = {
  link: 'hostnet.link', // { name }: a bridge, tap or veth on the host (deleting a veth end removes both)
  links: 'hostnet.links', // { names }: host links created in one batch, deleted in one
  netns: 'hostnet.netns', // { name }: a named network namespace (test and bench stand-in vehicles)
  iptables: 'hostnet.iptables', // { rule, netns? }: one filter rule, removed with -D of the same spec
  iptablesSet: 'hostnet.iptables-set', // { rules, netns? }: filter rules added in one iptables-restore, removed together
  deviceLink: 'hostnet.device-link', // { name, bridge, wasUp }: a device's host interface cavsim joined to a run's bridge (released, not deleted)
  tunnel: 'hostnet.tunnel', // { host, inverse }: one resource of a VXLAN tunnel on the host it names (src/host/network/tunnel-apply.ts)
} as const;

/**
 * A run whose cars are on other hosts: the hosts file that reaches them (`{ file, hosts }`), so a later
 * `cavsim teardown` can undo each entry on the host it names. Nothing to undo itself.
 */
export const HOSTS_FILE_KIND = 'hosts.file';

/** The ns-3 channel process; `undo` is a ProcessIdentity `{ pid, startTime }` (src/host/exec/process-identity.ts). */
export const NS3_PROCESS_KIND = 'ns3.process';
