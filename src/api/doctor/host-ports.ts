import { existsSync, readdirSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultCacheDir } from '../../channel/ns3/compile.js';
import type { DockerPort } from '../../host/docker/docker-port.js';
import type { CommandRunner } from '../../host/exec/command-runner.js';
import { prepareFastProcessStart } from '../../host/exec/start-piped-process.js';
import { Journal } from '../../host/journal/journal.js';
import { isRunLive, listActiveRuns } from '../../run/active-runs.js';
import { RUN_FILES } from '../../run/run-files.js';
import type { DoctorPorts, LeftoverRun } from './types.js';

/** The real host behind the doctor's checks. `runsDir` holds one directory per run. */
export function createHostDoctorPorts(deps: { docker: DockerPort; commands: CommandRunner; runsDir: string }): DoctorPorts {
  return {
    docker: deps.docker,
    commands: deps.commands,
    fileExists: (path) =>
      stat(path).then(
        () => true,
        () => false,
      ),
    readFile: (path) => readFile(path),
    uid: process.getuid?.() ?? -1,
    leftoverRuns: async () => findLeftoverRuns(deps.runsDir),
    fastProcessStart: () => prepareFastProcessStart(deps.commands, defaultCacheDir()),
  };
}

/** Runs under `runsDir` whose journal.jsonl still has entries that were never undone, and whose cavsim process is gone. */
export function findLeftoverRuns(runsDir: string): LeftoverRun[] {
  if (!existsSync(runsDir)) return [];
  const live = new Set(
    listActiveRuns()
      .filter(isRunLive)
      .map((r) => r.runId),
  );
  return readdirSync(runsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !live.has(entry.name) && existsSync(join(runsDir, entry.name, RUN_FILES.journal)))
    .map((entry) => {
      const journalPath = join(runsDir, entry.name, RUN_FILES.journal);
      return { runId: entry.name, journalPath, outstanding: Journal.open(journalPath).outstanding().length };
    })
    .filter((run) => run.outstanding > 0)
    .sort((a, b) => a.runId.localeCompare(b.runId));
}
