import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../../src/errors.js';
import type { BuildContextSource } from '../../../../src/host/docker/build-context.js';
import type { ImageInfo } from '../../../../src/host/docker/docker-port.js';
import { createDockerPort } from '../../../../src/host/docker/dockerode-port.js';
import {
  CAVSIM_IMAGES,
  DEFAULT_BASE_IMAGE,
  describePruned,
  ensureImages,
  type ImageEvent,
  requireVehicleImages,
} from '../../../../src/host/docker/images.js';
import { decideSupersededImages } from '../../../../src/host/docker/superseded-images.js';
import { FakeDockerode } from './fake-dockerode.js';

const cavsimLabels = (role: string) => ({ 'cavsim.context-hash': 'h0', 'cavsim.role': role, 'cavsim.base-image-id': 'sha256:b' });
const image = (id: string, labels: Record<string, string>, tags: string[] = [], createdAt = '2026-11-22T08:00:00.000Z'): ImageInfo => ({
  id,
  tags,
  labels,
  createdAt,
});

describe('decideSupersededImages', () => {
  const facts = {
    current: new Set(['sha256:new']),
    inUse: new Set(['sha256:used']),
    buildStartedMs: Date.parse('2026-11-22T09:00:00.000Z'),
  };

  it.each([
    ['an untagged simulator image from an earlier build', 'remove', image('sha256:a', cavsimLabels('simulator'))],
    [
      'an untagged vehicle image listed by the old engine as <none>:<none>',
      'remove',
      image('sha256:b', cavsimLabels('vehicle'), ['<none>:<none>']),
    ],
    ['an image without cavsim labels', 'not built by cavsim', image('sha256:c', { maintainer: 'someone' })],
    [
      'a code-hash label but another role',
      'not built by cavsim',
      image('sha256:d', { 'cavsim.context-hash': 'h0', 'cavsim.role': 'tool' }),
    ],
    ['a role label but no code hash', 'not built by cavsim', image('sha256:e', { 'cavsim.role': 'vehicle' })],
    ['a cavsim image still tagged (e.g. a user retagged it)', 'still tagged', image('sha256:f', cavsimLabels('vehicle'), ['mine:1'])],
    ['the image just built', 'current', image('sha256:new', cavsimLabels('vehicle'))],
    ['an image a container (even a stopped one) was created from', 'used by a container', image('sha256:used', cavsimLabels('simulator'))],
    [
      'an untagged image made after this build began (another build, about to tag it)',
      'not older than this build',
      image('sha256:g', cavsimLabels('vehicle'), [], '2026-11-22T09:00:00.500Z'),
    ],
    ['an untagged image of unknown age', 'not older than this build', image('sha256:h', cavsimLabels('vehicle'), [], '')],
  ])('%s: %s', (_what, expected, candidate) => {
    const decision = decideSupersededImages([candidate], facts);
    if (expected === 'remove') expect(decision).toEqual({ remove: [candidate.id], keep: [] });
    else expect(decision).toEqual({ remove: [], keep: [{ id: candidate.id, reason: expected }] });
  });
});

function setup() {
  const fake = new FakeDockerode();
  fake.images.set(DEFAULT_BASE_IMAGE, { Id: 'sha256:base1', RepoTags: [DEFAULT_BASE_IMAGE], Config: { Labels: {} } });
  const context: BuildContextSource = {
    prepare: async () => ({ dir: '/tmp/ctx', include: [], dockerfiles: { simulator: 's', vehicle: 'v' }, dispose: async () => {} }),
  };
  // The fake engine dates every image 1795330000 s; this build starts later.
  return { fake, deps: { docker: createDockerPort(fake), context, now: () => 1_795_340_000_000 } };
}

describe('ensureImages removes what a rebuild superseded', () => {
  it('removes the previous cavsim images after a rebuild, keeping one a container uses and anything not cavsim built', async () => {
    const { fake, deps } = setup();
    await ensureImages(deps, { contextHash: 'h1' });
    const oldSimulator = fake.images.get(CAVSIM_IMAGES.simulator)!.Id;
    const oldVehicle = fake.images.get(CAVSIM_IMAGES.vehicle)!.Id;
    // A kept run's vehicle container still runs on the old vehicle image; someone else's image is dangling too.
    fake.containers.set('c1', { id: 'c1', name: 'cavsim-kept-car0', options: { Image: oldVehicle }, running: true, pid: 1 });
    fake.addUntaggedImage('sha256:foreign', { maintainer: 'someone' });

    const events: ImageEvent[] = [];
    const result = await ensureImages(deps, { contextHash: 'h2' }, (e) => events.push(e));
    expect(result.built).toEqual(['simulator', 'vehicle']);
    expect(events.at(-1)).toEqual({ type: 'images-pruned', removed: [oldSimulator], kept: 1 });
    expect(fake.calls.filter((c) => c.startsWith('removeImage'))).toEqual([`removeImage ${oldSimulator}`]);
    expect([...fake.images.values()].map((i) => i.Id)).toEqual(
      expect.arrayContaining([
        oldVehicle,
        'sha256:foreign',
        fake.images.get(CAVSIM_IMAGES.simulator)!.Id,
        fake.images.get(CAVSIM_IMAGES.vehicle)!.Id,
      ]),
    );
    expect([...fake.images.values()].some((i) => i.Id === oldSimulator)).toBe(false);
  });

  it('keeps an image the engine refuses to remove (a container appeared meanwhile), and a failed listing never fails the build', async () => {
    const { fake, deps } = setup();
    await ensureImages(deps, { contextHash: 'h1' });
    const events: ImageEvent[] = [];
    fake.addUntaggedImage('sha256:raced', { 'cavsim.context-hash': 'h0', 'cavsim.role': 'vehicle' });
    const origRemove = fake.getImage;
    fake.getImage = (name: string) => ({
      ...origRemove(name),
      remove: async () => Promise.reject(Object.assign(new Error('conflict'), { statusCode: 409 })),
    });
    await ensureImages(deps, { contextHash: 'h2' }, (e) => events.push(e));
    expect(events.at(-1)).toMatchObject({ type: 'images-pruned', removed: [], kept: 3 });

    fake.getImage = origRemove;
    fake.listImages = async () => Promise.reject(Object.assign(new Error('engine hiccup'), { statusCode: 500 }));
    const result = await ensureImages(deps, { contextHash: 'h3' }, (e) => events.push(e));
    expect(result.built).toEqual(['simulator', 'vehicle']);
    expect(events.at(-1)).toMatchObject({ type: 'images-pruned', removed: [], error: expect.stringMatching(/engine hiccup/) });
  });

  it('does not look for old images when nothing was rebuilt', async () => {
    const { fake, deps } = setup();
    await ensureImages(deps, { contextHash: 'h1' });
    const listed = fake.calls.filter((c) => c === 'listImages').length;
    await ensureImages(deps, { contextHash: 'h1' });
    expect(fake.calls.filter((c) => c === 'listImages')).toHaveLength(listed);
  });
});

describe('requireVehicleImages', () => {
  it('names the scenario field of each vehicle image that is not on this machine', async () => {
    const { deps } = setup();
    const vehicles = [{ name: 'car0' }, { name: 'car1', image: 'my/vehicle:1' }, { name: 'car2', image: DEFAULT_BASE_IMAGE }];
    const error = await requireVehicleImages(deps.docker, vehicles).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserInputError);
    expect((error as UserInputError).message).toBe('vehicles.car1.image: image "my/vehicle:1" is not on this machine');
    expect((error as UserInputError).hint).toMatch(/docker build -t/);

    const two = await requireVehicleImages(deps.docker, [...vehicles, { name: 'car3', image: 'x/y' }]).catch((e: unknown) => e);
    expect((two as UserInputError).details).toEqual([
      'vehicles.car1.image: image "my/vehicle:1" is not on this machine',
      'vehicles.car3.image: image "x/y" is not on this machine',
    ]);
    await expect(
      requireVehicleImages(deps.docker, [{ name: 'car0' }, { name: 'car2', image: DEFAULT_BASE_IMAGE }]),
    ).resolves.toBeUndefined();
  });
});

describe('describePruned', () => {
  it('names the removed images by short id', () => {
    expect(
      describePruned({ type: 'images-pruned', removed: ['sha256:0123456789abcdef0000', 'sha256:fedcba9876543210ffff'], kept: 1 }),
    ).toBe('removed 2 superseded cavsim images (0123456789ab, fedcba987654)');
  });

  it('says why nothing was removed when removal failed', () => {
    expect(describePruned({ type: 'images-pruned', removed: [], kept: 0, error: 'engine gone' })).toBe(
      'old cavsim images not removed: engine gone',
    );
  });
});
