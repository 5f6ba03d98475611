/**
 * Against the real Docker engine (needs root and a running dockerd: `sudo scripts/setup-docker.sh`).
 * Outside CI a missing one skips this file with a message; in CI it fails (test/support/real-components.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuildContextSource } from '../../../src/host/docker/build-context.js';
import { connectDocker } from '../../../src/host/docker/dockerode-port.js';
import { DEFAULT_BASE_IMAGE, ensureImages, type ImageEvent } from '../../../src/host/docker/images.js';
import { createJournaledDocker, dockerUndoers } from '../../../src/host/docker/journaled.js';
import { LABEL, runLabels } from '../../../src/host/docker/labels.js';
import { findLeftoversByLabel } from '../../../src/host/docker/leftovers.js';
import { parseResources } from '../../../src/host/docker/resources.js';
import { createCommandRunner } from '../../../src/host/exec/command-runner.js';
import { Journal } from '../../../src/host/journal/journal.js';
import { dockerProblem, requireReal, rootProblem } from '../../support/real-components.js';
import { scratchDir } from '../../support/scratch-dir.js';

const REPO = resolve(import.meta.dirname, '../../..');
const RUN_ID = `itest-docker-${process.pid}`;
const IMAGES = { simulator: `cavsim/itest-simulator:${process.pid}`, vehicle: `cavsim/itest-vehicle:${process.pid}` };

const docker = connectDocker();
const real = requireReal('docker/docker-engine.test.ts', rootProblem() ?? (await dockerProblem(docker)));

/** A two-file context whose Dockerfiles sit where ensureImages expects them. */
function tinyContext(): BuildContextSource {
  return {
    async prepare() {
      const dir = mkdtempSync(join(tmpdir(), 'cavsim-itest-ctx-'));
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile's ${BASE_IMAGE}, not a template
      const dockerfile = 'ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nCOPY hello.txt /opt/hello.txt\nCMD ["sleep", "infinity"]\n';
      const dockerfiles = { simulator: 'containers/simulator/Dockerfile', vehicle: 'containers/vehicle/Dockerfile' };
      for (const file of Object.values(dockerfiles)) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        writeFileSync(join(dir, file), dockerfile);
      }
      writeFileSync(join(dir, 'hello.txt'), 'hello from the build context\n');
      return { dir, include: ['containers', 'hello.txt'], dockerfiles, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  };
}

describe.skipIf(real.skip)('Docker engine (real)', () => {
  const journal = Journal.open(join(scratchDir('cavsim-itest-run-'), 'journal.jsonl'));
  const runDir = mkdtempSync(join(tmpdir(), `cavsim-${RUN_ID}-`));

  beforeAll(async () => {
    real.assertPresent();
    if (!(await docker.inspectImage(DEFAULT_BASE_IMAGE))) {
      const started = Date.now();
      await createCommandRunner().run([join(REPO, 'scripts/build-base-image.sh')]);
      console.log(`[docker integration] base image built in ${Date.now() - started} ms`);
    }
  });

  afterAll(async () => {
    await journal.teardown(dockerUndoers(docker));
    await createCommandRunner().run(['docker', 'image', 'rm', '--force', IMAGES.simulator, IMAGES.vehicle], { allowFailure: true });
    rmSync(runDir, { recursive: true, force: true });
  });

  it('builds images FROM the local base, and skips the build when nothing changed', async () => {
    const events: ImageEvent[] = [];
    const first = await ensureImages({ docker, context: tinyContext() }, { contextHash: 'itest-1', images: IMAGES }, (e) => events.push(e));
    expect(first.built).toEqual(['simulator', 'vehicle']);
    expect(events.some((e) => e.type === 'image-build-output' && /FROM/.test(e.line))).toBe(true);
    const done = events.filter((e) => e.type === 'image-build-done');
    console.log(`[docker integration] tiny image builds: ${done.map((e) => `${e.role} ${e.elapsedMs} ms`).join(', ')}`);

    const image = await docker.inspectImage(IMAGES.vehicle);
    expect(image?.labels[LABEL.contextHash]).toBe('itest-1');
    const second = await ensureImages({ docker, context: tinyContext() }, { contextHash: 'itest-1', images: IMAGES });
    expect(second.built).toEqual([]);
  });

  it('runs a labelled container with fixed IP and limits, then tears it down from the journal', async () => {
    const run = createJournaledDocker(docker, journal, RUN_ID);
    const network = `cavsim-${RUN_ID}-ctl`;
    const container = `cavsim-${RUN_ID}-car1`;
    await run.createNetwork({ name: network, labels: runLabels(RUN_ID), subnet: '10.213.77.0/24', internal: true });

    const started = Date.now();
    await run.createContainer({
      name: container,
      image: IMAGES.vehicle,
      labels: runLabels(RUN_ID, 'vehicle', 'car1'),
      network: { name: network, ipv4Address: '10.213.77.11' },
      binds: [{ hostPath: runDir, containerPath: '/run-output' }],
      capAdd: ['NET_ADMIN'],
      resources: parseResources({ cpus: 0.5, memory: '256m' }),
      env: { CAVSIM_VEHICLE: 'car1' },
      init: true,
    });
    await docker.startContainer(container);
    console.log(`[docker integration] container create+start: ${Date.now() - started} ms`);

    const info = await docker.inspectContainer(container);
    expect(info?.running).toBe(true);
    expect(info?.pid).toBeGreaterThan(0);
    expect(info?.ipv4ByNetwork[network]).toBe('10.213.77.11');
    expect(info?.labels).toMatchObject({ 'cavsim.run': RUN_ID, 'cavsim.role': 'vehicle', 'cavsim.vehicle': 'car1' });

    const node = await docker.exec(container, ['node', '-v']);
    expect(node.exitCode).toBe(0);
    expect(node.stdout).toMatch(/^v18\./);

    // Limits as the kernel sees them (cgroup v1 or v2), the copied file, the mount and NET_ADMIN.
    const limits = await docker.exec(container, [
      'sh',
      '-c',
      'echo "memory=$(cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes)"; ' +
        'if [ -f /sys/fs/cgroup/cpu.max ]; then echo "cpu=$(cat /sys/fs/cgroup/cpu.max)"; ' +
        'else echo "cpu=$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"; fi; ' +
        'cat /opt/hello.txt; echo "$CAVSIM_VEHICLE" > /run-output/written-by-container; ' +
        'ip link set lo mtu 1400 && iptables -A OUTPUT -d 192.0.2.1 -j DROP && echo net-admin-ok',
    ]);
    expect(limits.exitCode, limits.stderr).toBe(0);
    expect(limits.stdout).toContain(`memory=${256 * 1024 * 1024}\n`);
    const [quota, period] = /^cpu=(\d+) (\d+)$/m.exec(limits.stdout)!.slice(1).map(Number);
    expect(quota / period).toBeCloseTo(0.5, 5);
    expect(limits.stdout).toContain('hello from the build context');
    expect(limits.stdout).toContain('net-admin-ok');
    expect(readFileSync(join(runDir, 'written-by-container'), 'utf8')).toBe('car1\n');

    // The host can enter the container's network namespace by its PID.
    const netns = await createCommandRunner().run(['nsenter', '-t', String(info!.pid), '-n', 'ip', '-o', '-4', 'addr', 'show']);
    expect(netns.stdout).toContain('10.213.77.11');

    expect((await findLeftoversByLabel(docker, RUN_ID)).map((l) => l.kind).sort()).toEqual(['container', 'network']);

    const tornDown = Date.now();
    const report = await journal.teardown(dockerUndoers(docker));
    console.log(`[docker integration] teardown (running container + network): ${Date.now() - tornDown} ms`);
    expect(report.failed).toEqual([]);
    expect(report.undone.map((e) => e.kind)).toEqual(['docker-container', 'docker-network']);
    expect(await findLeftoversByLabel(docker, RUN_ID)).toEqual([]);
    expect(await docker.inspectContainer(container)).toBeUndefined();
    expect(await docker.inspectNetwork(network)).toBeUndefined();
  });
});
