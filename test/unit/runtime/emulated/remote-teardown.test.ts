import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ContainerSpec, DockerPort } from '../../../../src/host/docker/docker-port.js';
import { createJournaledDocker, dockerUndoers } from '../../../../src/host/docker/journaled.js';
import { routedDocker } from '../../../../src/host/docker/routed-port.js';
import { Journal } from '../../../../src/host/journal/journal.js';
import { HOSTS_FILE_KIND } from '../../../../src/host/journal/kinds.js';
import type { HostNetOperation } from '../../../../src/host/network/operation-schema.js';
import { applyTunnelSteps } from '../../../../src/host/network/tunnel-apply.js';
import { hostDeath } from '../../../../src/runtime/emulated/remote-cars.js';
import { RUN_HOST } from '../../../../src/runtime/emulated/remote-plan.js';
import { hostsFileUndoer, journalHostsFile, remoteUndoDeps } from '../../../../src/runtime/emulated/remote-teardown.js';
import { allUndoers } from '../../../../src/runtime/emulated/run-emulated.js';

const RUN_ID = 'r53';
let ids = 0;

/** An engine that holds containers by name and id; what is not used here throws. */
function fakeEngine(name: string) {
  const containers = new Map<string, { id: string; labels: Record<string, string> }>();
  const find = (key: string) => [...containers.entries()].find(([n, c]) => n === key || c.id === key);
  const port = {
    name,
    containers,
    createContainer: async (spec: ContainerSpec) => {
      const id = `${name}-${++ids}`;
      containers.set(spec.name, { id, labels: spec.labels });
      return { id };
    },
    inspectContainer: async (key: string) => {
      const f = find(key);
      return f ? { id: f[1].id, name: f[0], labels: f[1].labels, running: true, pid: 4242 } : undefined;
    },
    removeContainer: async (key: string) => {
      const f = find(key);
      if (!f) return 'absent' as const;
      containers.delete(f[0]);
      return 'removed' as const;
    },
    runToCompletion: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
  };
  return port as typeof port & DockerPort;
}

const recordingOps = () => {
  const ran: HostNetOperation[] = [];
  return { ran, run: async (op: HostNetOperation) => (ran.push(op), { ok: true as const }) };
};

describe("a run over hosts: container calls routed to each car's engine, undone on the host each entry names", () => {
  it("routes by name and by the id an engine gave, so the journal's undoer removes a remote car on its host", async () => {
    const local = fakeEngine('local');
    const h1 = fakeEngine('h1');
    const routed = routedDocker(local, (n) => (n === 'car0' ? h1 : undefined));
    const journal = Journal.open(join(mkdtempSync(join(tmpdir(), 'cavsim-routed-')), 'journal.jsonl'));
    const docker = createJournaledDocker(routed, journal, RUN_ID, (n) => (n === 'car0' ? 'h1' : undefined));
    await docker.createContainer({ name: 'sim', image: 'x', labels: { 'cavsim.run': RUN_ID } });
    await docker.createContainer({ name: 'car0', image: 'x', labels: { 'cavsim.run': RUN_ID } });
    expect([...local.containers.keys()]).toEqual(['sim']);
    expect([...h1.containers.keys()]).toEqual(['car0']);
    expect(journal.outstanding().map((e) => e.undo)).toEqual([
      { name: 'sim', runId: RUN_ID },
      { name: 'car0', runId: RUN_ID, host: 'h1' },
    ]);
    const report = await journal.teardown(dockerUndoers(routed));
    expect(report.failed).toEqual([]);
    expect(local.containers.size + h1.containers.size).toBe(0);
  });

  it('cavsim teardown later: each entry on its host; a host that does not answer is named and its entries kept, the rest undone', async () => {
    const local = fakeEngine('local');
    const h1 = fakeEngine('h1');
    const h2 = fakeEngine('h2');
    const here = recordingOps();
    const journal = Journal.open(join(mkdtempSync(join(tmpdir(), 'cavsim-remote-undo-')), 'journal.jsonl'));
    journal.record(HOSTS_FILE_KIND, '/hosts.yaml', { file: '/hosts.yaml', hosts: ['h1', 'h2'] });
    for (const [name, engine] of [
      ['car0', h1],
      ['car1', h2],
    ] as const) {
      await engine.createContainer({ name, image: 'x', labels: { 'cavsim.run': RUN_ID } });
      journal.record('docker-container', name, { name, runId: RUN_ID, host: engine.name });
    }
    const step = (host: string, name: string) => ({
      host,
      id: `vxlan ${name}`,
      apply: { op: 'link-up', name } as const,
      inverse: { op: 'delete-link', name, alias: `cavsim:${RUN_ID}` } as const,
    });
    await applyTunnelSteps([step(RUN_HOST, 'vx-a-0'), step('h1', 'vx-a-0'), step('h2', 'vx-a-1')], journal, {
      ops: () => recordingOps(),
      pidOf: async () => 1,
    });
    expect(journalHostsFile(journal.outstanding())).toEqual({ file: '/hosts.yaml', hosts: ['h1', 'h2'] });

    const deps = remoteUndoDeps({ docker: local, hostNet: here }, RUN_ID, journal.outstanding(), [
      { name: 'h1', docker: h1 },
      { name: 'h2', problem: 'connect ECONNREFUSED' },
    ]);
    const report = await journal.teardown({ ...allUndoers(deps), [HOSTS_FILE_KIND]: hostsFileUndoer(journal) });
    expect(h1.containers.size).toBe(0);
    expect(h2.containers.size).toBe(1);
    expect(here.ran).toEqual([{ op: 'delete-link', name: 'vx-a-0', alias: `cavsim:${RUN_ID}` }]);
    expect(report.failed.map((f) => [f.entry.id, f.error])).toEqual([
      ['h2: vxlan vx-a-1', expect.stringMatching(/^h2: its Docker engine does not answer \(connect ECONNREFUSED\)/)],
      ['car1', expect.stringMatching(/^h2: its Docker engine does not answer/)],
      ['/hosts.yaml', expect.stringMatching(/^kept: 2 entries/)],
    ]);
    // the hosts file stays named for the next teardown
    expect(journal.outstanding().map((e) => e.id)).toEqual(['/hosts.yaml', 'car1', 'h2: vxlan vx-a-1']);
  });
});

describe('hostDeath: a remote host watched for the whole run', () => {
  const timing = { pingMs: 5, silentMs: 40 };

  it('names an engine that stops answering (an error, or no answer at all) once it has been silent long enough', async () => {
    let calls = 0;
    const failing = { ping: async () => (++calls > 3 ? Promise.reject(new Error('connect ECONNREFUSED 10.219.0.12:2376')) : undefined) };
    const death = await hostDeath(failing, new AbortController().signal, timing);
    expect(calls).toBeGreaterThan(3);
    expect(death).toMatchObject({
      exit_status: null,
      how: expect.stringMatching(/^stopped answering: its Docker engine was silent for 0 s \(connect ECONNREFUSED/),
    });
    const hanging = { ping: () => new Promise<void>(() => {}) };
    expect((await hostDeath(hanging, new AbortController().signal, timing))?.how).toMatch(/stopped answering/);
  });

  it('an engine that answers is never named; the end of the watch ends it with nothing', async () => {
    const stop = new AbortController();
    const watched = hostDeath({ ping: async () => {} }, stop.signal, timing);
    await new Promise((r) => setTimeout(r, 100));
    stop.abort();
    expect(await watched).toBeUndefined();
  });
});
