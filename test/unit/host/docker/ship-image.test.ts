import { describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../../../src/errors.js';
import { createDockerPort } from '../../../../src/host/docker/dockerode-port.js';
import { describeShipped, remoteCarImages, shipImages } from '../../../../src/host/docker/ship-image.js';
import { FakeDockerode } from './fake-dockerode.js';

const BASE = 'cavsim/base:bookworm';
const VEHICLE = 'cavsim/vehicle:latest';
const image = (id: string, tag: string, labels: Record<string, string> = {}) => ({ Id: id, RepoTags: [tag], Config: { Labels: labels } });

function engines() {
  const local = new FakeDockerode();
  local.images.set(BASE, image('sha256:base1', BASE));
  local.images.set(VEHICLE, image('sha256:veh2', VEHICLE, { 'cavsim.context-hash': 'h2' }));
  const remote = new FakeDockerode();
  let clock = 0;
  return {
    local,
    remote,
    ship: () =>
      shipImages(createDockerPort(local), createDockerPort(remote), 'lab-pc-1', remoteCarImages(VEHICLE, BASE), () => (clock += 500)),
  };
}

describe('shipImages', () => {
  it('streams the base, then the vehicle image, from the local engine into a host that has neither; same ids there', async () => {
    const { local, remote, ship } = engines();
    const shipped = await ship();
    expect(shipped).toEqual([
      { tag: BASE, id: 'sha256:base1', action: 'shipped', reason: 'missing', elapsedMs: 500 },
      { tag: VEHICLE, id: 'sha256:veh2', action: 'shipped', reason: 'missing', elapsedMs: 500 },
    ]);
    expect(local.calls.filter((c) => c.startsWith('saveImage'))).toEqual([`saveImage ${BASE}`, `saveImage ${VEHICLE}`]);
    expect(remote.images.get(VEHICLE)?.Id).toBe('sha256:veh2');
    expect(remote.images.get(VEHICLE)?.Config.Labels['cavsim.context-hash']).toBe('h2');
    expect(describeShipped('lab-pc-1', shipped)).toEqual([
      'lab-pc-1: shipped cavsim/base:bookworm (base1, was missing) in 0.5 s',
      'lab-pc-1: shipped cavsim/vehicle:latest (veh2, was missing) in 0.5 s',
    ]);
  });

  it('ships nothing when the host has the same builds, and only the one that differs otherwise', async () => {
    const { local, remote, ship } = engines();
    remote.images.set(BASE, image('sha256:base1', BASE));
    remote.images.set(VEHICLE, image('sha256:veh1', VEHICLE, { 'cavsim.context-hash': 'h1' }));
    const shipped = await ship();
    expect(shipped).toEqual([
      { tag: BASE, id: 'sha256:base1', action: 'present' },
      { tag: VEHICLE, id: 'sha256:veh2', action: 'shipped', reason: 'different', replacedId: 'sha256:veh1', elapsedMs: 500 },
    ]);
    expect(local.calls).not.toContain(`saveImage ${BASE}`);
    expect(describeShipped('lab-pc-1', shipped)[1]).toBe('lab-pc-1: shipped cavsim/vehicle:latest (veh2, replacing veh1) in 0.5 s');

    local.calls.length = 0;
    remote.calls.length = 0;
    expect((await ship()).map((s) => s.action)).toEqual(['present', 'present']);
    expect(local.calls.some((c) => c.startsWith('saveImage'))).toBe(false);
    expect(remote.calls).not.toContain('loadImage');
  });

  it('refuses an image the run host lacks, and a load that leaves another id on the host', async () => {
    const { local, remote, ship } = engines();
    local.images.delete(VEHICLE);
    await expect(ship()).rejects.toThrow(/image cavsim\/vehicle:latest is not on the run's host, so it cannot be shipped to lab-pc-1/);

    const other = engines();
    other.remote.loadImage = async () => {
      other.remote.calls.push('loadImage');
      return (await import('node:stream')).Readable.from(['{"stream":"Loaded"}\n']);
    };
    const err = await other.ship().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect((err as Error).message).toBe('lab-pc-1: after loading cavsim/base:bookworm its engine has no such image, not base1');
    expect(remote.images.has(VEHICLE)).toBe(false);
  });

  it('fails on an error the engine reports in the load progress', async () => {
    const { remote, ship } = engines();
    remote.loadImage = async () =>
      (await import('node:stream')).Readable.from([
        '{"errorDetail":{"message":"no space left on device"},"error":"no space left on device"}\n',
      ]);
    await expect(ship()).rejects.toThrow(/docker load failed: no space left on device/);
  });
});

describe('runToCompletion', () => {
  it('feeds stdin, returns output and exit code, and removes the container', async () => {
    const fake = new FakeDockerode();
    fake.images.set(BASE, image('sha256:base1', BASE));
    fake.oneShot = (_options, input) => ({ exitCode: 3, stdout: input.toUpperCase() });
    const docker = createDockerPort(fake);
    const r = await docker.runToCompletion(
      {
        name: 'cvx-plumb-1',
        image: BASE,
        labels: {},
        cmd: ['ip', '-batch', '-'],
        hostNetwork: true,
        hostPid: true,
        securityOpt: ['seccomp=unconfined'],
        capAdd: ['NET_ADMIN'],
      },
      { input: 'link show\n' },
    );
    expect(r).toEqual({ exitCode: 3, stdout: 'LINK SHOW\n', stderr: '' });
    expect(fake.stdinOf.get('cvx-plumb-1')).toBe('link show\n');
    expect(fake.containers.size).toBe(0);
    expect(fake.calls.slice(0, 2)).toEqual(['createContainer cvx-plumb-1', expect.stringMatching(/^attach /)]);
  });

  it('passes --pid host and --security-opt to the engine', async () => {
    const fake = new FakeDockerode();
    fake.images.set(BASE, image('sha256:base1', BASE));
    let seen: Record<string, unknown> = {};
    fake.oneShot = (options) => {
      seen = options.HostConfig;
      return { exitCode: 0, stdout: '' };
    };
    await createDockerPort(fake).runToCompletion({
      name: 'x',
      image: BASE,
      labels: {},
      hostNetwork: true,
      hostPid: true,
      securityOpt: ['apparmor=unconfined'],
    });
    expect(seen).toMatchObject({ NetworkMode: 'host', PidMode: 'host', SecurityOpt: ['apparmor=unconfined'] });
  });
});
