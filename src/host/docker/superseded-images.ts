import type { DockerPort, ImageInfo } from './docker-port.js';
import { type ContainerRole, LABEL } from './labels.js';

const CAVSIM_ROLES: readonly string[] = ['simulator', 'vehicle'] satisfies ContainerRole[];

export interface SupersededDecision {
  remove: string[];
  keep: { id: string; reason: 'not built by cavsim' | 'still tagged' | 'current' | 'used by a container' | 'not older than this build' }[];
}

/**
 * Which images a rebuild left behind may go: only those cavsim built (its code-hash and role labels),
 * that no tag points to any more, that are not the images just built, that no container (running
 * or not) was created from, and that existed before this build began: another `cavsim up` building
 * at the same moment has, for an instant, a finished image that is not tagged yet. Everything else stays.
 */
export function decideSupersededImages(
  candidates: readonly ImageInfo[],
  facts: { current: ReadonlySet<string>; inUse: ReadonlySet<string>; buildStartedMs: number },
): SupersededDecision {
  const decision: SupersededDecision = { remove: [], keep: [] };
  for (const image of candidates) {
    const keep = (reason: SupersededDecision['keep'][number]['reason']) => decision.keep.push({ id: image.id, reason });
    if (!image.labels[LABEL.contextHash] || !CAVSIM_ROLES.includes(image.labels[LABEL.role])) keep('not built by cavsim');
    else if (image.tags.some((t) => t !== '<none>:<none>')) keep('still tagged');
    else if (facts.current.has(image.id)) keep('current');
    else if (facts.inUse.has(image.id)) keep('used by a container');
    // The engine reports creation to the second; an unreadable date keeps the image.
    else if (!(Date.parse(image.createdAt) < facts.buildStartedMs - 1000)) keep('not older than this build');
    else decision.remove.push(image.id);
  }
  return decision;
}

/**
 * Removes the simulator and vehicle images that earlier builds left untagged (see
 * decideSupersededImages). A container created between the listing and the removal makes the
 * engine refuse; that image is then kept.
 */
export async function removeSupersededImages(
  docker: Pick<DockerPort, 'listImages' | 'imageIdsInUse' | 'removeImage'>,
  currentIds: readonly string[],
  buildStartedMs: number,
): Promise<{ removed: string[]; kept: number }> {
  const candidates = await docker.listImages({ [LABEL.contextHash]: true }, { danglingOnly: true });
  if (!candidates.length) return { removed: [], kept: 0 };
  const decision = decideSupersededImages(candidates, {
    current: new Set(currentIds),
    inUse: await docker.imageIdsInUse(),
    buildStartedMs,
  });
  const removed: string[] = [];
  let kept = decision.keep.length;
  for (const id of decision.remove) {
    if ((await docker.removeImage(id)) === 'in-use') kept++;
    else removed.push(id);
  }
  return { removed, kept };
}
