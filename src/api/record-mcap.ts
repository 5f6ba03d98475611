import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UserInputError } from '../errors.js';
import { packageVersion } from '../run/host-facts.js';
import type { McapRecordingFigures } from '../run/mcap/mcap-recording.js';
import { readRunScenario } from '../run/read-run-folder.js';
import { RUN_FILES } from '../run/run-files.js';
import { loadScenarioMap } from '../scenario/scenario-map.js';

/**
 * `cavsim mcap runs/<id>`: writes (or rewrites) run.mcap from a finished run's folder, for runs
 * recorded with `record: { mcap: false }` or made before recordings existed.
 */
export async function recordMcapOf(runDir: string): Promise<McapRecordingFigures> {
  const scenario = readRunScenario(
    runDir,
    new UserInputError(`${runDir} has no ${RUN_FILES.scenario}`, [], 'pass a run folder written by `cavsim up` (runs/<run-id>)'),
  );
  const summary = readJson(join(runDir, RUN_FILES.summary)) as { runtime?: string; timing?: { t0_epoch_ns?: string } } | undefined;
  const runtime = summary?.runtime === 'docker' ? 'docker' : 'sim';
  const t0 = summary?.timing?.t0_epoch_ns;
  const { writeRunMcap } = await import('../run/mcap/mcap-recording.js');
  return writeRunMcap({
    runDir,
    scenario,
    grid: await loadScenarioMap(scenario).catch(() => undefined),
    timeBaseNs: runtime === 'docker' && t0 !== undefined ? BigInt(t0) : 0n,
    runtime,
    runId: basename(resolve(runDir)) || basename(dirname(resolve(runDir))),
    library: `cavsim ${packageVersion()}`,
  });
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}
