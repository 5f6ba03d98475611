import { EnvironmentError } from '../../errors.js';
import type { Journal, JournalEntry, Undoer } from '../journal/journal.js';
import { HOSTNET_KINDS } from '../journal/kinds.js';
import type { HostNetOps } from './hostnet-port.js';
import type { HostNetOperation } from './operation-schema.js';
import type { PlannedOperation, TunnelStep } from './tunnel-plan.js';

/** What a tunnel's steps need of the hosts they run on. */
export interface TunnelHosts {
  /** The host's privileged operations: the run's host's helper, or a remote host's plumbing containers. */
  ops(host: string): HostNetOps;
  /** The pid (in its host's pid namespace) of a running container there; undefined when it is not running. */
  pidOf(host: string, container: string): Promise<number | undefined>;
}

export interface TunnelUndo {
  host: string;
  inverse: PlannedOperation;
}

/**
 * Runs a tunnel's steps in order, each journaled (its host and inverse) before it runs, so a run cut
 * short anywhere is undone from the journal alone. A step on a container's namespace needs it running.
 */
export async function applyTunnelSteps(steps: readonly TunnelStep[], journal: Journal, hosts: TunnelHosts): Promise<void> {
  for (const step of steps) {
    const undo: TunnelUndo = { host: step.host, inverse: step.inverse };
    journal.record(HOSTNET_KINDS.tunnel, `${step.host}: ${step.id}`, { ...undo });
    const op = await resolveNetns(step.apply, step.host, hosts);
    if (!op)
      throw new EnvironmentError(
        `${step.host}: ${step.id}: the container is not running`,
        'the car container must be started (networking disabled) before its tunnel is plumbed',
      );
    await hosts.ops(step.host).run(op);
  }
}

/**
 * The inverse of `hostnet.tunnel` entries, on the host each names. A step inside a container that is
 * no longer running is done: its namespace went with it, and its links too.
 */
export function tunnelUndoers(hosts: TunnelHosts): Record<string, Undoer> {
  return {
    [HOSTNET_KINDS.tunnel]: async (e: JournalEntry) => {
      const u = e.undo as unknown as TunnelUndo;
      const op = await resolveNetns(u.inverse, u.host, hosts);
      if (op) await hosts.ops(u.host).run(op);
    },
  };
}

async function resolveNetns(op: PlannedOperation, host: string, hosts: TunnelHosts): Promise<HostNetOperation | undefined> {
  if (!('netns' in op) || !op.netns || !('container' in op.netns)) return op as HostNetOperation;
  const pid = await hosts.pidOf(host, op.netns.container);
  return pid ? ({ ...op, netns: { pid } } as HostNetOperation) : undefined;
}
