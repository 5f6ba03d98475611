export type * from './docker-port.js';
export { connectDocker, createDockerPort, type DockerodeLike } from './dockerode-port.js';
export { LABEL, runLabels, runFilter, type ContainerRole } from './labels.js';
export { parseResources, parseCpus, parseMemory, type ResourceLimits } from './resources.js';
export { createJournaledDocker, dockerUndoers, type JournaledDocker } from './journaled.js';
export { DOCKER_KINDS } from '../journal/kinds.js';
export { findLeftoversByLabel, removeLeftovers, type DockerLeftover } from './leftovers.js';
export {
  computeContextHash,
  repoBuildContext,
  productionPackagePaths,
  DOCKERFILES,
  type BuildContextSource,
  type PreparedBuildContext,
} from './build-context.js';
export {
  ensureImages,
  requireVehicleImages,
  CAVSIM_IMAGES,
  DEFAULT_BASE_IMAGE,
  BASE_ID_LABEL,
  type ImageEvent,
  type ImageSet,
  type EnsureImagesOptions,
} from './images.js';
export { decideSupersededImages, removeSupersededImages, type SupersededDecision } from './superseded-images.js';
