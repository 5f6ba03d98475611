import { describe, expect, it } from 'vitest';
import { CavsimError, EnvironmentError } from '../../../../src/errors.js';
import type { ContainerSpec } from '../../../../src/host/docker/docker-port.js';
import { createDockerPort } from '../../../../src/host/docker/dockerode-port.js';
import { runLabels } from '../../../../src/host/docker/labels.js';
import { engineError, FakeDockerode } from './fake-dockerode.js';

const vehicleSpec = (name = 'cavsim-r1-car1'): ContainerSpec => ({
  name,
  image: 'cavsim/vehicle:latest',
  labels: runLabels('r1', 'vehicle', 'car1'),
  cmd: ['node', 'main.js'],
  env: { CAVSIM_VEHICLE: 'car1' },
  binds: [
    { hostPath: '/work/runs/r1', containerPath: '/run-output' },
    { hostPath: '/etc/x', containerPath: '/x', readOnly: true },
  ],
  network: { name: 'cavsim-r1-ctl', ipv4Address: '10.77.0.11' },
  capAdd: ['NET_ADMIN'],
  resources: { nanoCpus: 500_000_000, memoryBytes: 256 * 1024 * 1024 },
  init: true,
});

function setup() {
  const fake = new FakeDockerode();
  fake.images.set('cavsim/vehicle:latest', { Id: 'sha256:img', RepoTags: ['cavsim/vehicle:latest'], Config: { Labels: {} } });
  return { fake, port: createDockerPort(fake) };
}

describe('createDockerPort over a dockerode-like client', () => {
  it('translates a container spec into the engine options', async () => {
    const { fake, port } = setup();
    await port.createNetwork({ name: 'cavsim-r1-ctl', labels: runLabels('r1'), subnet: '10.77.0.0/24' });
    const { id } = await port.createContainer(vehicleSpec());
    const options = fake.containers.get(id)!.options;
    expect(options).toMatchObject({
      name: 'cavsim-r1-car1',
      Image: 'cavsim/vehicle:latest',
      Cmd: ['node', 'main.js'],
      Env: ['CAVSIM_VEHICLE=car1'],
      Labels: { 'cavsim.run': 'r1', 'cavsim.role': 'vehicle', 'cavsim.vehicle': 'car1' },
      HostConfig: {
        Binds: ['/work/runs/r1:/run-output', '/etc/x:/x:ro'],
        CapAdd: ['NET_ADMIN'],
        NanoCpus: 500_000_000,
        Memory: 268_435_456,
        MemorySwap: 268_435_456,
        NetworkMode: 'cavsim-r1-ctl',
        Init: true,
      },
      NetworkingConfig: { EndpointsConfig: { 'cavsim-r1-ctl': { IPAMConfig: { IPv4Address: '10.77.0.11' } } } },
    });
    const network = [...fake.networks.values()][0].options;
    expect(network).toMatchObject({
      Name: 'cavsim-r1-ctl',
      Labels: { 'cavsim.run': 'r1' },
      IPAM: { Config: [{ Subnet: '10.77.0.0/24' }] },
    });
  });

  it('reports PID and control-network address of a started container', async () => {
    const { port } = setup();
    await port.createNetwork({ name: 'cavsim-r1-ctl', labels: runLabels('r1'), subnet: '10.77.0.0/24' });
    await port.createContainer(vehicleSpec());
    expect((await port.inspectContainer('cavsim-r1-car1'))?.running).toBe(false);
    await port.startContainer('cavsim-r1-car1');
    const info = await port.inspectContainer('cavsim-r1-car1');
    expect(info).toMatchObject({ name: 'cavsim-r1-car1', running: true, ipv4ByNetwork: { 'cavsim-r1-ctl': '10.77.0.11' } });
    expect(info!.pid).toBeGreaterThan(0);
    expect(await port.inspectContainer('nope')).toBeUndefined();
  });

  it('stops and removes idempotently', async () => {
    const { port } = setup();
    await port.createNetwork({ name: 'cavsim-r1-ctl', labels: runLabels('r1') });
    await port.createContainer(vehicleSpec());
    await port.startContainer('cavsim-r1-car1');
    await port.stopContainer('cavsim-r1-car1', 2);
    await port.stopContainer('cavsim-r1-car1', 2);
    expect(await port.removeContainer('cavsim-r1-car1')).toBe('removed');
    expect(await port.removeContainer('cavsim-r1-car1')).toBe('absent');
    expect(await port.removeNetwork('cavsim-r1-ctl')).toBe('removed');
    expect(await port.removeNetwork('cavsim-r1-ctl')).toBe('absent');
  });

  it('lists only what carries the requested labels', async () => {
    const { port } = setup();
    await port.createNetwork({ name: 'cavsim-r1-ctl', labels: runLabels('r1') });
    await port.createNetwork({ name: 'other', labels: { team: 'x' } });
    await port.createContainer(vehicleSpec('cavsim-r1-car1'));
    await port.createContainer({ ...vehicleSpec('cavsim-r2-car1'), labels: runLabels('r2', 'vehicle', 'car1') });
    expect((await port.listContainers({ 'cavsim.run': 'r1' })).map((c) => c.name)).toEqual(['cavsim-r1-car1']);
    expect((await port.listContainers({ 'cavsim.run': true })).map((c) => c.name).sort()).toEqual(['cavsim-r1-car1', 'cavsim-r2-car1']);
    expect((await port.listNetworks({ 'cavsim.run': true })).map((n) => n.name)).toEqual(['cavsim-r1-ctl']);
  });

  it('splits exec output into stdout and stderr and returns the exit code', async () => {
    const { port } = setup();
    await port.createNetwork({ name: 'cavsim-r1-ctl', labels: runLabels('r1') });
    await port.createContainer(vehicleSpec());
    await port.startContainer('cavsim-r1-car1');
    expect(await port.exec('cavsim-r1-car1', ['node', '-v'])).toEqual({ exitCode: 0, stdout: 'v18.20.4\n', stderr: 'warning\n' });
  });

  it('streams build output and fails with the engine message and output tail', async () => {
    const { fake, port } = setup();
    const lines: string[] = [];
    const built = await port.buildImage(
      { contextDir: '/tmp/ctx', include: ['dist'], dockerfile: 'Dockerfile', tag: 't:1', labels: { a: 'b' } },
      (l) => lines.push(l),
    );
    expect(lines).toEqual(['Step 1/2 : FROM base', 'Step 2/2 : COPY dist ./dist']);
    expect(built).toMatchObject({ tags: ['t:1'], labels: { a: 'b' } });

    fake.buildOutput = [
      { stream: 'Step 1/2 : FROM nothing\n' },
      { error: 'pull access denied', errorDetail: { message: 'pull access denied' } },
    ];
    const failure = await port
      .buildImage({ contextDir: '/tmp/ctx', include: ['dist'], dockerfile: 'Dockerfile', tag: 't:2' })
      .catch((e) => e);
    expect(failure).toBeInstanceOf(CavsimError);
    expect(failure.message).toContain('pull access denied');
    expect(failure.details).toEqual(['Step 1/2 : FROM nothing']);
  });

  it('turns an unreachable engine into an EnvironmentError with a fix', async () => {
    const { fake, port } = setup();
    fake.reachable = false;
    const error = await port.ping().catch((e) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(error.hint).toContain('setup-docker.sh');
    await expect(port.listContainers({})).rejects.toBeInstanceOf(EnvironmentError);
  });

  it('passes other engine errors on with the status and engine message', async () => {
    const { fake, port } = setup();
    fake.failOnCall(1, engineError(500, 'disk full'));
    await expect(port.createNetwork({ name: 'n', labels: {} })).rejects.toThrow(/create network n failed \(HTTP 500\): disk full/);
  });
});
