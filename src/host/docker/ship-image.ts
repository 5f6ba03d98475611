import { EnvironmentError } from '../../errors.js';
import type { DockerPort } from './docker-port.js';

/** What `shipImages` did with one image on one host. */
export interface ShippedImage {
  tag: string;
  /** The image id on both engines afterwards (`docker load` keeps the id `docker save` wrote). */
  id: string;
  /** `present`: already the same build there; `shipped`: saved here and loaded there. */
  action: 'present' | 'shipped';
  /** Why it was shipped: not on the host, or a different build under the same tag. */
  reason?: 'missing' | 'different';
  /** The id the host had under this tag before (a different build). */
  replacedId?: string;
  elapsedMs?: number;
}

/**
 * Makes each image (in order: the base first, then the images built on it) the same build on a
 * remote host's engine as on the run's: compared by image id, and when missing or different streamed
 * by `docker save` from the local engine straight into the host's `docker load` (no file between).
 * Checked afterwards by id. Touches nothing else on the host.
 */
export async function shipImages(
  from: Pick<DockerPort, 'inspectImage' | 'saveImage'>,
  to: Pick<DockerPort, 'inspectImage' | 'loadImage'>,
  hostName: string,
  tags: readonly string[],
  now: () => number = Date.now,
): Promise<ShippedImage[]> {
  const shipped: ShippedImage[] = [];
  for (const tag of tags) {
    const local = await from.inspectImage(tag);
    if (!local)
      throw new EnvironmentError(
        `image ${tag} is not on the run's host, so it cannot be shipped to ${hostName}`,
        'build it first (`cavsim images`; the base: scripts/build-base-image.sh)',
      );
    const there = await to.inspectImage(tag);
    if (there?.id === local.id) {
      shipped.push({ tag, id: local.id, action: 'present' });
      continue;
    }
    const started = now();
    await to.loadImage(await from.saveImage(tag));
    const loaded = await to.inspectImage(tag);
    if (loaded?.id !== local.id)
      throw new EnvironmentError(
        `${hostName}: after loading ${tag} its engine has ${loaded ? `image ${short(loaded.id)}` : 'no such image'}, not ${short(local.id)}`,
        `check the host's disk space and engine log; load it by hand: docker save ${tag} | docker -H <engine> load`,
      );
    shipped.push({
      tag,
      id: local.id,
      action: 'shipped',
      reason: there ? 'different' : 'missing',
      ...(there ? { replacedId: there.id } : {}),
      elapsedMs: now() - started,
    });
  }
  return shipped;
}

const short = (id: string) => id.replace(/^sha256:/, '').slice(0, 12);

/** One line per image for a reporter: what was shipped to the host, and why. */
export function describeShipped(hostName: string, images: readonly ShippedImage[]): string[] {
  return images.map((i) =>
    i.action === 'present'
      ? `${hostName}: ${i.tag} (${short(i.id)}) already there`
      : `${hostName}: shipped ${i.tag} (${short(i.id)}, ${i.reason === 'missing' ? 'was missing' : `replacing ${short(i.replacedId ?? '')}`}) in ${((i.elapsedMs ?? 0) / 1000).toFixed(1)} s`,
  );
}

/** The images a remote car needs: the base (shared layers, and the plumbing steps' image) and the vehicle image. */
export const remoteCarImages = (vehicleImage: string, baseImage: string): string[] => [baseImage, vehicleImage];
