import { computeContextHash, repoBuildContext } from '../host/docker/build-context.js';
import { connectDocker } from '../host/docker/dockerode-port.js';
import { ensureImages, type ImageEvent, type ImageState, imageStates } from '../host/docker/images.js';

export { describePruned } from '../host/docker/images.js';

import { packageRoot } from '../util/package-root.js';

/**
 * `cavsim images`: builds the simulator and vehicle images when missing or carrying older code
 * (unless `check`), then says what each one is.
 */
export async function prepareImages(opts: { force?: boolean; check?: boolean }, onEvent: (e: ImageEvent) => void): Promise<ImageState[]> {
  const docker = connectDocker();
  await docker.ping();
  const root = packageRoot();
  const options = { contextHash: await computeContextHash(root), force: opts.force };
  if (!opts.check) await ensureImages({ docker, context: repoBuildContext(root) }, options, onEvent);
  return imageStates(docker, options);
}
