export { DOCKER_KINDS } from '../journal/kinds.js';
export {
  type BuildContextSource,
  computeContextHash,
  DOCKERFILES,
  type PreparedBuildContext,
  productionPackagePaths,
  repoBuildContext,
} from './build-context.js';
export type * from './docker-port.js';
export { connectDocker, createDockerPort, type DockerodeLike } from './dockerode-port.js';
export { type HostEngine, hostEngines, PING_TIMEOUT_MS, pingHosts } from './host-engines.js';
export {
  BASE_ID_LABEL,
  CAVSIM_IMAGES,
  DEFAULT_BASE_IMAGE,
  type EnsureImagesOptions,
  ensureImages,
  type ImageEvent,
  type ImageSet,
  requireVehicleImages,
} from './images.js';
export { createJournaledDocker, dockerUndoers, type JournaledDocker } from './journaled.js';
export { type ContainerRole, LABEL, runFilter, runLabels } from './labels.js';
export { type DockerLeftover, findLeftoversByLabel, removeLeftovers } from './leftovers.js';
export { parseCpus, parseMemory, parseResources, type ResourceLimits } from './resources.js';
export { describeShipped, remoteCarImages, type ShippedImage, shipImages } from './ship-image.js';
export { decideSupersededImages, removeSupersededImages, type SupersededDecision } from './superseded-images.js';
