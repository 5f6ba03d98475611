import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DockerPort } from '../../../../src/host/docker/docker-port.js';
import { createDockerPort } from '../../../../src/host/docker/dockerode-port.js';
import { createJournaledDocker, dockerUndoers } from '../../../../src/host/docker/journaled.js';
import { runLabels } from '../../../../src/host/docker/labels.js';
import { Journal } from '../../../../src/host/journal/journal.js';
import { DOCKER_KINDS } from '../../../../src/host/journal/kinds.js';
import { FakeDockerode } from './fake-dockerode.js';

const scratch = mkdtempSync(join(tmpdir(), 'cavsim-journal-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let journals = 0;

const RUN = 'run-42';

function setup() {
  const fake = new FakeDockerode();
  fake.images.set('img', { Id: 'sha256:img', RepoTags: ['img'], Config: { Labels: {} } });
  const port = createDockerPort(fake);
  const journal = Journal.open(join(scratch, `journal-${++journals}.jsonl`));
  return { fake, port, journal, docker: createJournaledDocker(port, journal, RUN) };
}

/** What an orchestrator does for one run: control network, simulator, two vehicles, all started. */
async function bringUp(docker: ReturnType<typeof createJournaledDocker>, port: DockerPort) {
  await docker.createNetwork({ name: `cavsim-${RUN}-ctl`, labels: runLabels(RUN), subnet: '10.77.0.0/24' });
  for (const [name, role, vehicle] of [
    ['sim', 'simulator', undefined],
    ['car1', 'vehicle', 'car1'],
    ['car2', 'vehicle', 'car2'],
  ] as const) {
    const containerName = `cavsim-${RUN}-${name}`;
    await docker.createContainer({
      name: containerName,
      image: 'img',
      labels: runLabels(RUN, role, vehicle),
      network: { name: `cavsim-${RUN}-ctl` },
    });
    await port.startContainer(containerName);
  }
}

describe('journaled Docker resources', () => {
  it('records each resource before asking the engine for it', async () => {
    const { fake, journal, docker } = setup();
    fake.failOnCall(1);
    await expect(docker.createNetwork({ name: 'cavsim-run-42-ctl', labels: runLabels(RUN) })).rejects.toThrow();
    expect(journal.outstanding()).toMatchObject([
      { kind: DOCKER_KINDS.network, id: 'cavsim-run-42-ctl', undo: { name: 'cavsim-run-42-ctl', runId: RUN } },
    ]);
    expect(fake.networks.size).toBe(0);
  });

  it('tears a full bring-up down to an empty engine', async () => {
    const { fake, port, journal, docker } = setup();
    await bringUp(docker, port);
    expect(fake.containers.size).toBe(3);
    const report = await journal.teardown(dockerUndoers(port));
    expect(report.failed).toEqual([]);
    expect(report.undone.map((e) => e.kind)).toEqual([...Array(3).fill(DOCKER_KINDS.container), DOCKER_KINDS.network]);
    expect(fake.containers.size).toBe(0);
    expect(fake.networks.size).toBe(0);
  });

  it('leaves the engine empty whichever engine call fails during bring-up', async () => {
    const { fake: probe, port: probePort, docker: probeDocker } = setup();
    await bringUp(probeDocker, probePort);
    const totalCalls = probe.calls.length;

    for (let n = 1; n <= totalCalls; n++) {
      const { fake, port, journal, docker } = setup();
      fake.failOnCall(n);
      await expect(bringUp(docker, port)).rejects.toThrow(/injected failure/);
      const report = await journal.teardown(dockerUndoers(port));
      expect(report.failed, `failure at call ${n}`).toEqual([]);
      expect(fake.containers.size, `containers left after failure at call ${n}`).toBe(0);
      expect(fake.networks.size, `networks left after failure at call ${n}`).toBe(0);
      expect(journal.outstanding()).toEqual([]);
    }
  });

  it('is idempotent: replaying undoers for resources already gone succeeds', async () => {
    const { fake, port, journal, docker } = setup();
    await bringUp(docker, port);
    const entries = journal.outstanding();
    await journal.teardown(dockerUndoers(port));
    const undoers = dockerUndoers(port);
    for (const entry of entries) await undoers[entry.kind](entry);
    expect(fake.containers.size + fake.networks.size).toBe(0);
  });

  it('keeps going when one undo fails and reports it', async () => {
    const { fake, port, journal, docker } = setup();
    await bringUp(docker, port);
    fake.failOnCall(1); // the first inspect of the newest container
    const report = await journal.teardown(dockerUndoers(port));
    // The network still has car2 attached, so removing it fails too; a second teardown finishes the job.
    expect(report.failed.map((f) => f.entry.id)).toEqual([`cavsim-${RUN}-car2`, `cavsim-${RUN}-ctl`]);
    expect(report.failed[1].error).toMatch(/active endpoints/);
    expect(report.undone.map((e) => e.id)).toEqual([`cavsim-${RUN}-car1`, `cavsim-${RUN}-sim`]);
    const second = await journal.teardown(dockerUndoers(port));
    expect(second.failed).toEqual([]);
    expect(fake.containers.size + fake.networks.size).toBe(0);
  });

  it('leaves a same-named resource that belongs to another run alone, without failing the teardown', async () => {
    const { fake, port, journal, docker } = setup();
    await docker.createContainer({ name: 'cavsim-run-42-sim', image: 'img', labels: runLabels(RUN, 'simulator') });
    await port.removeContainer('cavsim-run-42-sim', { force: true });
    await port.createContainer({ name: 'cavsim-run-42-sim', image: 'img', labels: runLabels('someone-else', 'simulator') });
    const report = await journal.teardown(dockerUndoers(port));
    expect(report.failed).toEqual([]);
    expect(report.leftAlone.map((l) => l.reason)).toEqual(['container cavsim-run-42-sim belongs to run someone-else; left alone']);
    expect(fake.containers.size).toBe(1);
    expect(journal.outstanding()).toEqual([]);
  });

  it('leaves a user network that held the planned name alone: creation fails, teardown succeeds and touches nothing', async () => {
    const { fake, port, journal, docker } = setup();
    await port.createNetwork({ name: 'cavsim-taken', labels: { owner: 'the user' } });
    fake.failOnCall(1, Object.assign(new Error('network with name cavsim-taken already exists'), { statusCode: 409 }));
    await expect(docker.createNetwork({ name: 'cavsim-taken', labels: runLabels(RUN) })).rejects.toThrow(/already exists/);
    const report = await journal.teardown(dockerUndoers(port));
    expect(report.failed).toEqual([]);
    expect(report.leftAlone.map((l) => l.reason)).toEqual(['network cavsim-taken belongs to no cavsim run; left alone']);
    expect([...fake.networks.values()].map((n) => n.name)).toEqual(['cavsim-taken']);
  });

  it('rejects a spec without the run label before touching journal or engine', async () => {
    const { fake, journal, docker } = setup();
    await expect(docker.createContainer({ name: 'x', image: 'img', labels: {} })).rejects.toThrow(/label cavsim.run must be "run-42"/);
    expect(journal.outstanding()).toEqual([]);
    expect(fake.calls).toEqual([]);
  });
});
