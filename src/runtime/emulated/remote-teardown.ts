import { EnvironmentError } from '../../errors.js';
import type { DockerPort } from '../../host/docker/docker-port.js';
import { DEFAULT_BASE_IMAGE } from '../../host/docker/images.js';
import { runLabels } from '../../host/docker/labels.js';
import { routedDocker } from '../../host/docker/routed-port.js';
import type { Journal, JournalEntry, Undoer } from '../../host/journal/journal.js';
import { DOCKER_KINDS, HOSTS_FILE_KIND } from '../../host/journal/kinds.js';
import type { HostNetOps } from '../../host/network/hostnet-port.js';
import { runTag } from '../../host/network/names.js';
import { createPlumbingOps } from '../../host/network/plumbing-ops.js';
import type { TunnelHosts } from '../../host/network/tunnel-apply.js';
import type { EmulatedRunDeps } from './emulated-deps.js';
import { RUN_HOST } from './remote-plan.js';

/**
 * The run's long-lived plumbing container on a host. Named for the host too: the journal finds a
 * container's engine by its name, so no two hosts may share one (a host's name is container-safe).
 */
export function plumbingSessionName(runId: string, host: string): string {
  return `cavsim-${runTag(runId)}-plumbing-${host}`;
}

/**
 * A remote host's privileged operations for one run: `docker exec`s in the run's plumbing container
 * while it runs there, else short-lived containers of its engine, named after the run.
 */
export function plumbingOf(docker: DockerPort, host: string, runId: string, prefix: string): HostNetOps {
  let n = 0;
  return createPlumbingOps(docker, {
    host,
    image: DEFAULT_BASE_IMAGE,
    name: () => `cavsim-${runTag(runId)}-${prefix}-${++n}`,
    labels: runLabels(runId),
    session: plumbingSessionName(runId, host),
  });
}

/** The hosts file a run's journal names, if its cars ran on other hosts. */
export function journalHostsFile(entries: readonly JournalEntry[]): { file: string; hosts: string[] } | undefined {
  const e = entries.find((x) => x.kind === HOSTS_FILE_KIND);
  return e ? { file: String(e.undo.file), hosts: (e.undo.hosts as string[] | undefined) ?? [] } : undefined;
}

/** A host as a later teardown reached it: its engine, or why it could not. */
export interface ReachedHost {
  name: string;
  docker?: DockerPort;
  problem?: string;
}

/**
 * The ports that undo a run's journal on every host it names (`cavsim teardown` after `kill -9`):
 * container entries on the engine of the host each names, tunnel steps on theirs (plumbing containers
 * there, this host's operations for the run's host). An entry on a host that did not answer fails
 * naming it, so the journal keeps it for a later teardown, while every other host is restored.
 */
export function remoteUndoDeps(
  local: Pick<EmulatedRunDeps, 'docker' | 'hostNet'>,
  runId: string,
  entries: readonly JournalEntry[],
  hosts: readonly ReachedHost[],
): Pick<EmulatedRunDeps, 'docker' | 'hostNet' | 'tunnelHosts'> {
  const byName = new Map(hosts.map((h) => [h.name, h]));
  const unreachable = (host: string) =>
    new EnvironmentError(
      `${host}: its Docker engine does not answer (${byName.get(host)?.problem ?? 'not in the hosts file'}); its resources stay in the journal`,
      'bring the host back (or fix the hosts file), then run `cavsim teardown` again',
    );
  const dead = (host: string) =>
    new Proxy({} as DockerPort, {
      // not thenable: only its methods fail
      get: (_, key) =>
        key === 'then'
          ? undefined
          : async () => {
              throw unreachable(host);
            },
    });
  const engines = new Map(hosts.map((h) => [h.name, h.docker ?? dead(h.name)]));
  const engine = (host: string) => engines.get(host) ?? dead(host);
  const hostOf = new Map(
    entries.flatMap((e) =>
      e.kind === DOCKER_KINDS.container && typeof e.undo.host === 'string' ? [[String(e.undo.name), e.undo.host]] : [],
    ),
  );
  const plumbing = new Map(hosts.flatMap((h) => (h.docker ? [[h.name, plumbingOf(h.docker, h.name, runId, `undo-${process.pid}`)]] : [])));
  const tunnelHosts: TunnelHosts = {
    ops: (host) =>
      host === RUN_HOST
        ? local.hostNet
        : (plumbing.get(host) ?? {
            run: async () => {
              throw unreachable(host);
            },
          }),
    pidOf: async (host, container) => {
      const c = await (host === RUN_HOST ? local.docker : engine(host)).inspectContainer(container);
      return c?.running ? c.pid : undefined;
    },
  };
  return {
    hostNet: local.hostNet,
    docker: routedDocker(local.docker, (container) => {
      const host = hostOf.get(container);
      return host === undefined ? undefined : engine(host);
    }),
    tunnelHosts,
  };
}

/**
 * The hosts-file entry is undone last (it is the oldest of its run's remote entries), and only once
 * nothing else of the run is left: while a host's entries stay, a later teardown needs it to reach them.
 */
export const hostsFileUndoer =
  (journal: Pick<Journal, 'outstanding'>): Undoer =>
  async () => {
    const left = journal.outstanding().filter((e) => e.kind !== HOSTS_FILE_KIND).length;
    if (left)
      throw new EnvironmentError(
        `kept: ${left} entries on hosts that did not answer still need it`,
        'run `cavsim teardown` again once they answer',
      );
  };
