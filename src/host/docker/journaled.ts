import { CavsimError } from '../../errors.js';
import type { Journal, JournalEntry, Undoer } from '../journal/journal.js';
import { DOCKER_KINDS } from '../journal/kinds.js';
import type { ContainerSpec, DockerPort, NetworkSpec } from './docker-port.js';
import { LABEL } from './labels.js';

/** What an undoer needs, written into the journal before the resource exists. */
interface DockerUndo {
  name: string;
  runId: string;
  /** The host (of the run's hosts file) whose engine has it; none: the run's own engine. */
  host?: string;
}

/**
 * Creates run-scoped Docker resources, each recorded in the run's journal *before* the engine is
 * asked for it. Everything must carry the run's `cavsim.run` label; a spec without it is a bug.
 */
export interface JournaledDocker {
  createNetwork(spec: NetworkSpec): Promise<{ id: string }>;
  createContainer(spec: ContainerSpec): Promise<{ id: string }>;
}

export function createJournaledDocker(
  port: DockerPort,
  journal: Pick<Journal, 'record'>,
  runId: string,
  hostOf: (name: string) => string | undefined = () => undefined,
): JournaledDocker {
  const undoFor = (name: string, labels: Record<string, string>): DockerUndo => {
    if (labels[LABEL.run] !== runId) {
      throw new CavsimError('INTERNAL', `${name}: label ${LABEL.run} must be "${runId}", got "${labels[LABEL.run] ?? ''}"`);
    }
    const host = hostOf(name);
    return { name, runId, ...(host !== undefined ? { host } : {}) };
  };
  return {
    async createNetwork(spec) {
      journal.record(DOCKER_KINDS.network, spec.name, { ...undoFor(spec.name, spec.labels) });
      return port.createNetwork(spec);
    },
    async createContainer(spec) {
      journal.record(DOCKER_KINDS.container, spec.name, { ...undoFor(spec.name, spec.labels) });
      return port.createContainer(spec);
    },
  };
}

/**
 * Inverses for the journal's Docker entries. Idempotent: a resource that is already gone counts
 * as undone. A resource of that name that belongs to another run is left alone and reported.
 */
export function dockerUndoers(port: DockerPort): Record<string, Undoer> {
  return {
    [DOCKER_KINDS.container]: async (entry) => {
      const { name, runId } = readUndo(entry);
      const found = await port.inspectContainer(name);
      if (!found) return;
      if (found.labels[LABEL.run] !== runId) return notOurs('container', name, found.labels);
      await port.removeContainer(found.id, { force: true });
    },
    [DOCKER_KINDS.network]: async (entry) => {
      const { name, runId } = readUndo(entry);
      const found = await port.inspectNetwork(name);
      if (!found) return;
      if (found.labels[LABEL.run] !== runId) return notOurs('network', name, found.labels);
      await port.removeNetwork(found.id);
    },
  };
}

function readUndo(entry: JournalEntry): DockerUndo {
  const { name, runId } = entry.undo;
  if (typeof name !== 'string' || typeof runId !== 'string') {
    throw new CavsimError('INTERNAL', `journal entry ${entry.seq} (${entry.kind}) lacks name/runId: ${JSON.stringify(entry.undo)}`);
  }
  return { name, runId };
}

function notOurs(what: string, name: string, labels: Record<string, string>): { notOurs: string } {
  const owner = labels[LABEL.run] ? `run ${labels[LABEL.run]}` : 'no cavsim run';
  return { notOurs: `${what} ${name} belongs to ${owner}; left alone` };
}
