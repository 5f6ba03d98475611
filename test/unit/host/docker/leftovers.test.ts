import { describe, expect, it } from 'vitest';
import { createDockerPort } from '../../../../src/host/docker/dockerode-port.js';
import { runLabels } from '../../../../src/host/docker/labels.js';
import { findLeftoversByLabel, removeLeftovers } from '../../../../src/host/docker/leftovers.js';
import { FakeDockerode } from './fake-dockerode.js';

async function hostWithTwoRunsAndAStranger() {
  const fake = new FakeDockerode();
  fake.images.set('img', { Id: 'sha256:img', RepoTags: ['img'], Config: { Labels: {} } });
  const port = createDockerPort(fake);
  for (const run of ['a', 'b']) {
    await port.createNetwork({ name: `cavsim-${run}-ctl`, labels: runLabels(run) });
    await port.createContainer({
      name: `cavsim-${run}-sim`,
      image: 'img',
      labels: runLabels(run, 'simulator'),
      network: { name: `cavsim-${run}-ctl` },
    });
    await port.startContainer(`cavsim-${run}-sim`);
  }
  // Named like ours but not labelled: must never be touched.
  await port.createNetwork({ name: 'cavsim-lookalike', labels: {} });
  await port.createContainer({ name: 'cavsim-c-sim', image: 'img', labels: { 'cavsim.role': 'simulator' } });
  return { fake, port };
}

describe('leftovers by label', () => {
  it('finds one run by its label', async () => {
    const { port } = await hostWithTwoRunsAndAStranger();
    const found = await findLeftoversByLabel(port, 'a');
    expect(found.map((l) => `${l.kind}:${l.name}:${l.runId}`)).toEqual(['container:cavsim-a-sim:a', 'network:cavsim-a-ctl:a']);
  });

  it('finds every labelled run with no run id, and nothing unlabelled', async () => {
    const { port } = await hostWithTwoRunsAndAStranger();
    const names = (await findLeftoversByLabel(port)).map((l) => l.name).sort();
    expect(names).toEqual(['cavsim-a-ctl', 'cavsim-a-sim', 'cavsim-b-ctl', 'cavsim-b-sim']);
  });

  it('removes containers before their networks and leaves strangers alone', async () => {
    const { fake, port } = await hostWithTwoRunsAndAStranger();
    const found = await findLeftoversByLabel(port);
    // Networks first in the input: removal must still take the containers first.
    const result = await removeLeftovers(port, [...found].reverse());
    expect(result.failed).toEqual([]);
    expect(result.removed).toHaveLength(4);
    expect([...fake.containers.values()].map((c) => c.name)).toEqual(['cavsim-c-sim']);
    expect([...fake.networks.values()].map((n) => n.name)).toEqual(['cavsim-lookalike']);
  });
});
