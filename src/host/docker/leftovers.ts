import type { DockerPort } from './docker-port.js';
import { LABEL, runFilter } from './labels.js';

export interface DockerLeftover {
  kind: 'container' | 'network';
  id: string;
  name: string;
  runId: string;
}

/**
 * Containers and networks labelled with `cavsim.run=<runId>`, or with any cavsim run id when
 * runId is omitted (`cavsim teardown --all`). Never matches by name pattern.
 */
export async function findLeftoversByLabel(port: DockerPort, runId?: string): Promise<DockerLeftover[]> {
  const filter = runFilter(runId);
  const [containers, networks] = await Promise.all([port.listContainers(filter), port.listNetworks(filter)]);
  const owned = (labels: Record<string, string>) => labels[LABEL.run] !== undefined && (runId === undefined || labels[LABEL.run] === runId);
  return [
    ...containers.filter((c) => owned(c.labels)).map((c) => leftover('container', c.id, c.name, c.labels)),
    ...networks.filter((n) => owned(n.labels)).map((n) => leftover('network', n.id, n.name, n.labels)),
  ];
}

/** Removes leftovers, containers before the networks they sit on. Collects failures instead of stopping. */
export async function removeLeftovers(
  port: DockerPort,
  leftovers: readonly DockerLeftover[],
): Promise<{ removed: DockerLeftover[]; failed: { leftover: DockerLeftover; error: string }[] }> {
  const removed: DockerLeftover[] = [];
  const failed: { leftover: DockerLeftover; error: string }[] = [];
  const ordered = [...leftovers].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'container' ? -1 : 1));
  for (const item of ordered) {
    try {
      if (item.kind === 'container') await port.removeContainer(item.id, { force: true });
      else await port.removeNetwork(item.id);
      removed.push(item);
    } catch (err) {
      failed.push({ leftover: item, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return { removed, failed };
}

function leftover(kind: DockerLeftover['kind'], id: string, name: string, labels: Record<string, string>): DockerLeftover {
  return { kind, id, name, runId: labels[LABEL.run] };
}
