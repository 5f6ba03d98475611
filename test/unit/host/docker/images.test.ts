import { describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../../../src/errors.js';
import type { BuildContextSource } from '../../../../src/host/docker/build-context.js';
import { createDockerPort } from '../../../../src/host/docker/dockerode-port.js';
import { BASE_ID_LABEL, CAVSIM_IMAGES, DEFAULT_BASE_IMAGE, ensureImages, type ImageEvent } from '../../../../src/host/docker/images.js';
import { FakeDockerode } from './fake-dockerode.js';

function setup({ withBase = true } = {}) {
  const fake = new FakeDockerode();
  if (withBase) fake.images.set(DEFAULT_BASE_IMAGE, { Id: 'sha256:base1', RepoTags: [DEFAULT_BASE_IMAGE], Config: { Labels: {} } });
  const prepared: string[] = [];
  const disposed: string[] = [];
  const context: BuildContextSource = {
    async prepare() {
      const dir = `/tmp/ctx-${prepared.length + 1}`;
      prepared.push(dir);
      return {
        dir,
        include: ['containers', 'dist', 'node_modules', 'package.json'],
        dockerfiles: { simulator: 'containers/simulator/Dockerfile', vehicle: 'containers/vehicle/Dockerfile' },
        dispose: async () => void disposed.push(dir),
      };
    },
  };
  let clock = 1000;
  const deps = { docker: createDockerPort(fake), context, now: () => (clock += 250) };
  const events: ImageEvent[] = [];
  const record = (e: ImageEvent) => events.push(e);
  return { fake, deps, events, record, prepared, disposed };
}

describe('ensureImages', () => {
  it('builds both images when missing, labelled with the code hash and base id, with progress events', async () => {
    const { fake, deps, events, record, prepared, disposed } = setup();
    const result = await ensureImages(deps, { contextHash: 'h1' }, record);
    expect(result.built).toEqual(['simulator', 'vehicle']);
    expect(prepared).toEqual(['/tmp/ctx-1']);
    expect(disposed).toEqual(['/tmp/ctx-1']);
    const vehicle = fake.images.get(CAVSIM_IMAGES.vehicle)!;
    expect(vehicle.Config.Labels).toEqual({ 'cavsim.context-hash': 'h1', [BASE_ID_LABEL]: 'sha256:base1', 'cavsim.role': 'vehicle' });
    expect(vehicle.buildArgs).toEqual({ BASE_IMAGE: DEFAULT_BASE_IMAGE });
    expect(vehicle.dockerfile).toBe('containers/vehicle/Dockerfile');
    expect(events.map((e) => ('role' in e ? `${e.type}:${e.role}` : e.type))).toEqual([
      'image-build-start:simulator',
      'image-build-output:simulator',
      'image-build-output:simulator',
      'image-build-done:simulator',
      'image-build-start:vehicle',
      'image-build-output:vehicle',
      'image-build-output:vehicle',
      'image-build-done:vehicle',
      'images-pruned',
    ]);
    expect(events[0]).toMatchObject({ reason: 'missing' });
    expect(events[3]).toMatchObject({ elapsedMs: 250 });
  });

  it('does nothing, not even prepare a context, when the images carry the same code', async () => {
    const { fake, deps, events, record, prepared } = setup();
    await ensureImages(deps, { contextHash: 'h1' });
    const callsBefore = fake.calls.filter((c) => c.startsWith('buildImage')).length;
    const result = await ensureImages(deps, { contextHash: 'h1' }, record);
    expect(result.built).toEqual([]);
    expect(prepared).toHaveLength(1);
    expect(fake.calls.filter((c) => c.startsWith('buildImage'))).toHaveLength(callsBefore);
    expect(events.map((e) => e.type)).toEqual(['image-up-to-date', 'image-up-to-date']);
  });

  it('rebuilds when the code hash or the base image changed, or when forced', async () => {
    const { fake, deps, events, record } = setup();
    await ensureImages(deps, { contextHash: 'h1' });
    await ensureImages(deps, { contextHash: 'h2' }, record);
    fake.images.set(DEFAULT_BASE_IMAGE, { Id: 'sha256:base2', RepoTags: [DEFAULT_BASE_IMAGE], Config: { Labels: {} } });
    await ensureImages(deps, { contextHash: 'h2' }, record);
    await ensureImages(deps, { contextHash: 'h2', force: true }, record);
    const reasons = events.flatMap((e) => (e.type === 'image-build-start' ? [e.reason] : []));
    expect(reasons).toEqual(['code-changed', 'code-changed', 'base-changed', 'base-changed', 'forced', 'forced']);
  });

  it('asks for the base image script when the local base is missing', async () => {
    const { deps, prepared } = setup({ withBase: false });
    const error = await ensureImages(deps, { contextHash: 'h1' }).catch((e) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(error.hint).toContain('scripts/build-base-image.sh');
    expect(prepared).toEqual([]);
  });

  it('passes a registry base through as the build argument', async () => {
    const { fake, deps } = setup({ withBase: false });
    await ensureImages(deps, { contextHash: 'h1', baseImage: 'debian:bookworm-slim' });
    expect(fake.images.get(CAVSIM_IMAGES.simulator)!.buildArgs).toEqual({ BASE_IMAGE: 'debian:bookworm-slim' });
  });

  it('removes the prepared context even when a build fails', async () => {
    const { fake, deps, disposed } = setup();
    fake.buildOutput = [{ error: 'COPY failed: no source files', errorDetail: { message: 'COPY failed' } }];
    await expect(ensureImages(deps, { contextHash: 'h1' })).rejects.toThrow(/COPY failed/);
    expect(disposed).toEqual(['/tmp/ctx-1']);
  });
});
