import { EnvironmentError, UserInputError } from '../../errors.js';
import { asRoot } from '../exec/as-root.js';
import type { BuildContextSource } from './build-context.js';
import type { DockerPort, ImageInfo } from './docker-port.js';
import { type ContainerRole, LABEL } from './labels.js';
import { removeSupersededImages } from './superseded-images.js';

export const DEFAULT_BASE_IMAGE = 'cavsim/base:bookworm';
export type ImageSet = Record<ContainerRole, string>;
export const CAVSIM_IMAGES: ImageSet = {
  simulator: 'cavsim/simulator:latest',
  vehicle: 'cavsim/vehicle:latest',
};
/** The base image's id is recorded too, so rebuilding the base rebuilds the cavsim images. */
export const BASE_ID_LABEL = 'cavsim.base-image-id';

export type ImageBuildReason = 'missing' | 'code-changed' | 'base-changed' | 'forced';
export type ImageEvent =
  | { type: 'image-up-to-date'; role: ContainerRole; tag: string }
  | { type: 'image-build-start'; role: ContainerRole; tag: string; reason: ImageBuildReason }
  | { type: 'image-build-output'; role: ContainerRole; tag: string; line: string }
  | { type: 'image-build-done'; role: ContainerRole; tag: string; imageId: string; elapsedMs: number }
  /** After a rebuild: the untagged images earlier cavsim builds left behind, removed (never fatal). */
  | { type: 'images-pruned'; removed: string[]; kept: number; error?: string };

export interface EnsureImagesOptions {
  /** From computeContextHash(): identifies the code the images must carry. */
  contextHash: string;
  baseImage?: string;
  images?: ImageSet;
  force?: boolean;
}

export interface EnsureImagesDeps {
  docker: DockerPort;
  context: BuildContextSource;
  now?: () => number;
}

export interface ImageState {
  role: ContainerRole;
  tag: string;
  /** The image id when the image exists. */
  id?: string;
  /** Why it needs building; undefined when it is up to date. */
  reason?: ImageBuildReason;
  baseId: string;
}

/** Each cavsim image and whether it carries this code on this base; builds nothing (`cavsim images --check`). */
export async function imageStates(docker: Pick<DockerPort, 'inspectImage'>, options: EnsureImagesOptions): Promise<ImageState[]> {
  const images = options.images ?? CAVSIM_IMAGES;
  const baseImage = options.baseImage ?? DEFAULT_BASE_IMAGE;
  const base = await docker.inspectImage(baseImage);
  if (!base && baseImage === DEFAULT_BASE_IMAGE) {
    throw new EnvironmentError(
      `base image ${baseImage} is missing`,
      `Build it with \`${asRoot('scripts/build-base-image.sh')}\` (about 40 s), or pass a registry base such as debian:bookworm-slim.`,
    );
  }
  // A registry base that is not pulled yet is fetched by the build itself.
  const baseId = base?.id ?? baseImage;
  const states: ImageState[] = [];
  for (const role of Object.keys(images) as ContainerRole[]) {
    const image = await docker.inspectImage(images[role]);
    states.push({ role, tag: images[role], ...(image ? { id: image.id } : {}), reason: staleReason(image, options, baseId), baseId });
  }
  return states;
}

/**
 * Builds the simulator and vehicle images when they are missing or carry other code (or another
 * base), and reports each step as an event. The build context is prepared only when needed.
 */
export async function ensureImages(
  deps: EnsureImagesDeps,
  options: EnsureImagesOptions,
  onEvent: (event: ImageEvent) => void = () => {},
): Promise<{ images: ImageSet; built: ContainerRole[] }> {
  const now = deps.now ?? Date.now;
  const images = options.images ?? CAVSIM_IMAGES;
  const states = await imageStates(deps.docker, options);
  const baseImage = options.baseImage ?? DEFAULT_BASE_IMAGE;
  const baseId = states[0]?.baseId ?? baseImage;
  const stale: { role: ContainerRole; reason: ImageBuildReason }[] = [];
  for (const s of states) {
    if (s.reason) stale.push({ role: s.role, reason: s.reason });
    else onEvent({ type: 'image-up-to-date', role: s.role, tag: s.tag });
  }
  if (stale.length === 0) return { images, built: [] };

  const buildStartedMs = now();
  const context = await deps.context.prepare();
  const builtIds: string[] = [];
  try {
    for (const { role, reason } of stale) {
      const tag = images[role];
      const started = now();
      onEvent({ type: 'image-build-start', role, tag, reason });
      const built = await deps.docker.buildImage(
        {
          contextDir: context.dir,
          include: context.include,
          dockerfile: context.dockerfiles[role],
          tag,
          buildArgs: { BASE_IMAGE: baseImage },
          labels: { [LABEL.contextHash]: options.contextHash, [BASE_ID_LABEL]: baseId, [LABEL.role]: role },
        },
        (line) => onEvent({ type: 'image-build-output', role, tag, line }),
      );
      builtIds.push(built.id);
      onEvent({ type: 'image-build-done', role, tag, imageId: built.id, elapsedMs: now() - started });
    }
  } finally {
    await context.dispose();
  }
  await removeSupersededImages(deps.docker, builtIds, buildStartedMs).then(
    (pruned) => onEvent({ type: 'images-pruned', ...pruned }),
    (err: Error) => onEvent({ type: 'images-pruned', removed: [], kept: 0, error: err.message }),
  );
  return { images, built: stale.map((s) => s.role) };
}

function staleReason(image: ImageInfo | undefined, options: EnsureImagesOptions, baseId: string): ImageBuildReason | undefined {
  if (!image) return 'missing';
  if (options.force) return 'forced';
  if (image.labels[LABEL.contextHash] !== options.contextHash) return 'code-changed';
  if (image.labels[BASE_ID_LABEL] !== baseId) return 'base-changed';
  return undefined;
}

/**
 * A vehicle's own image (scenario `image:`) is never built or pulled by cavsim, so it must already
 * be on this machine. Checked before a run creates anything; the error names the scenario field.
 */
export async function requireVehicleImages(
  docker: Pick<DockerPort, 'inspectImage'>,
  vehicles: readonly { name: string; image?: string }[],
): Promise<void> {
  const missing: string[] = [];
  for (const [_i, v] of vehicles.entries()) {
    if (v.image && !(await docker.inspectImage(v.image)))
      missing.push(`vehicles.${v.name}.image: image "${v.image}" is not on this machine`);
  }
  if (!missing.length) return;
  throw new UserInputError(
    missing.length === 1 ? missing[0] : `${missing.length} vehicle images are not on this machine`,
    missing.length === 1 ? [] : missing,
    "cavsim does not pull or build a vehicle's own image: `docker build -t <image> <dir>` (or `docker pull <image>`) first, then run again.",
  );
}

/** One line for a reporter: which superseded images went, or why none could. */
export function describePruned(e: Extract<ImageEvent, { type: 'images-pruned' }>): string {
  if (e.error) return `old cavsim images not removed: ${e.error}`;
  if (!e.removed.length) return 'no old cavsim images to remove';
  return `removed ${e.removed.length} superseded cavsim image${e.removed.length === 1 ? '' : 's'} (${e.removed.map((id) => id.replace(/^sha256:/, '').slice(0, 12)).join(', ')})`;
}
