import { CAVSIM_IMAGES } from '../../host/docker/images.js';
import type { RunSession } from '../../run/run-session.js';
import type { EmulatedRunDeps } from './emulated-deps.js';

/**
 * The simulator and vehicle images, built when missing or older than the code, and their ids in the
 * manifest. Nothing to release: images outlive runs.
 */
export async function prepareImages(
  session: RunSession,
  deps: EmulatedRunDeps,
  emit: (phase: string, detail?: string) => void,
): Promise<void> {
  emit('images', 'checking the simulator and vehicle images');
  await deps.prepareImages((line) => emit('images', line));
  await session.recordImages(
    await imageIds(deps.docker, [
      CAVSIM_IMAGES.simulator,
      CAVSIM_IMAGES.vehicle,
      ...session.scenario.vehicles.flatMap((v) => (v.image ? [v.image] : [])),
    ]),
  );
}

/** Tag to image id: what the manifest records of the images a run used. */
async function imageIds(docker: EmulatedRunDeps['docker'], tags: string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const tag of new Set(tags)) {
    const id = (await docker.inspectImage(tag))?.id;
    if (id) ids[tag] = id;
  }
  return ids;
}
