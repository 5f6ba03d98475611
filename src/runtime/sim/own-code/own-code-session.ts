import { resolve } from 'node:path';
import { EnvironmentError } from '../../../errors.js';
import type { DockerPort } from '../../../host/docker/docker-port.js';
import { requireVehicleImages } from '../../../host/docker/images.js';
import { createJournaledDocker, dockerUndoers } from '../../../host/docker/journaled.js';
import { asRoot } from '../../../host/exec/as-root.js';
import type { Journal } from '../../../host/journal/journal.js';
import { openRunJournal, registerActiveRun, unregisterActiveRun } from '../../../run/active-runs.js';
import { RUN_FILES } from '../../../run/run-files.js';
import type { RunFolder } from '../../../run/run-folder.js';
import type { ResolvedScenario, ResolvedVehicle } from '../../../scenario/resolved.js';
import { OwnCodeVehicle } from './own-code-vehicle.js';
import { checkOwnCodeRunnable, scenarioFolder } from './runnable.js';
import type { VehicleCode } from './vehicle-code.js';

/**
 * Checks, before a simulated run creates anything, that its own code can start here: each host
 * command's program exists, and for vehicles with an `image:` the Docker engine answers and has the
 * image. Returns the engine when one is needed.
 */
/** The Docker engine, or how to reach it (called only when a car has an `image:`). */
export type DockerSource = DockerPort | (() => DockerPort | Promise<DockerPort>);

export async function preflightOwnCode(scenario: ResolvedScenario, docker?: DockerSource): Promise<DockerPort | undefined> {
  checkOwnCodeRunnable(scenario);
  const imaged = scenario.vehicles.filter((v) => v.image);
  if (!imaged.length) return undefined;
  if (!docker)
    throw new EnvironmentError(
      `${imaged.map((v) => `vehicles.${v.name}.image`).join(', ')}: no Docker engine was given to run it`,
      'run it through cavsim up, which connects to the local engine',
    );
  const engine = typeof docker === 'function' ? await docker() : docker;
  await engine.ping().catch((err: unknown) => {
    const fields = imaged.map((v) => `vehicles.${v.name}.image`).join(', ');
    throw new EnvironmentError(
      `${fields}: the simulated runtime runs a vehicle image with Docker, and ${err instanceof Error ? err.message : String(err)}`,
      `start Docker (\`${asRoot('scripts/setup-docker.sh')}\`), or drop \`image:\` and keep \`command:\` to run the code on this host`,
    );
  });
  await requireVehicleImages(engine, imaged);
  return engine;
}

/**
 * The own code of one simulated run: starts each vehicle's code (a host process, or a container
 * journaled in the run folder and indexed as an active run, so `cavsim teardown` can always remove
 * it), and at the end undoes the journal. External devices are not started: ../external-vehicle.ts.
 */
export function openOwnCodeSession(scenario: ResolvedScenario, folder: RunFolder, docker: DockerPort | undefined) {
  const runDir = resolve(folder.dir);
  let journal: Journal | undefined;
  const containers = () => {
    if (!docker) return undefined;
    if (!journal) {
      journal = openRunJournal({ runId: folder.runId, journal: folder.file(RUN_FILES.journal) });
      registerActiveRun(folder.runId, journal.path);
    }
    return { docker, journaled: createJournaledDocker(docker, journal, folder.runId), runId: folder.runId };
  };
  return {
    async start(spec: ResolvedVehicle, now: () => number): Promise<VehicleCode> {
      const engine = spec.image ? containers() : undefined;
      return OwnCodeVehicle.start(spec, {
        runDir,
        scenarioDir: scenarioFolder(scenario),
        duration: scenario.duration,
        now,
        ...(engine ? { containers: engine } : {}),
      });
    },
    /** Removes whatever containers the journal names; a run whose teardown fails stays indexed for `cavsim teardown`. */
    async close(): Promise<string | undefined> {
      if (!journal || !docker) return undefined;
      const report = await journal.teardown(dockerUndoers(docker));
      if (!report.failed.length) {
        unregisterActiveRun(folder.runId);
        return undefined;
      }
      return `teardown left: ${report.failed.map((f) => `${f.entry.kind} ${f.entry.id} (${f.error})`).join('; ')}; run \`cavsim teardown --run ${folder.runId}\``;
    },
  };
}
