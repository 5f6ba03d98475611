import type { DockerPort } from '../../../host/docker/docker-port.js';
import type { JournaledDocker } from '../../../host/docker/journaled.js';
import { runLabels } from '../../../host/docker/labels.js';
import type { ResolvedVehicle } from '../../../scenario/resolved.js';
import { lastLines } from '../../../util/last-lines.js';
import { writeFileNoFollow } from '../../../util/write-no-follow.js';
import type { CodeExit, OwnCodeRunner } from './host-process.js';

/**
 * Runs a vehicle's `image:` (with its `command:`, if any) for the simulated runtime: a container on
 * the host's network (its control link listens on loopback), the run folder mounted at the same
 * path, the vehicle's resource limits applied. Its main process is the container's PID 1 (no init),
 * so its CPU time is that of the code. Journaled before it exists, so `cavsim teardown` removes it
 * even after `kill -9`; its output goes to `logFile` when it ends.
 */
export async function startContainerRunner(
  spec: ResolvedVehicle,
  p: { docker: DockerPort; journaled: JournaledDocker; runId: string; runDir: string; env: Record<string, string>; logFile: string },
): Promise<OwnCodeRunner> {
  const name = `cavsim-sim-${p.runId}-${spec.name}`;
  await p.journaled.createContainer({
    name,
    image: spec.image!,
    ...(spec.command ? { cmd: spec.command } : {}),
    labels: runLabels(p.runId, 'vehicle', spec.name),
    env: p.env,
    // Read-only: the code reads its scenario here and may plant nothing where cavsim writes.
    binds: [{ hostPath: p.runDir, containerPath: p.runDir, readOnly: true }],
    hostNetwork: true,
    capDrop: ['NET_RAW'],
    resources: {
      ...(spec.resources.cpus ? { nanoCpus: Math.round(spec.resources.cpus * 1e9) } : {}),
      ...(spec.resources.memory ? { memoryBytes: spec.resources.memory } : {}),
    },
  });
  await p.docker.startContainer(name);
  const info = await p.docker.inspectContainer(name);
  const exited: Promise<CodeExit> = p.docker.waitContainer(name).then(
    (r) => ({ code: r?.exitCode ?? null, signal: null }),
    (err: unknown) => ({ code: null, signal: null, error: err instanceof Error ? err.message : String(err) }),
  );
  const logs = async () => (await p.docker.logs?.(name).catch(() => undefined)) ?? '';
  return {
    pid: info?.pid || undefined,
    exited,
    logTail: async () => lastLines(await logs()),
    async stop(graceMs) {
      const timeout = new Promise<undefined>((r) => setTimeout(() => r(undefined), graceMs).unref());
      if ((await Promise.race([exited, timeout])) === undefined) await p.docker.stopContainer(name, 1).catch(() => {});
      const exit = await exited;
      writeFileNoFollow(p.logFile, await logs());
      await p.docker.removeContainer(name, { force: true }).catch(() => {});
      return exit;
    },
  };
}
