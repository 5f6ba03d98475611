import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UserInputError } from '../errors.js';
import { compareRunFolders, type RunComparison } from '../run/compare-runs.js';
import type { RunEvents } from '../run/events.js';
import { type HostFacts, hostFacts, hostFactsNeed } from '../run/host-facts.js';
import { MANIFEST_FILE, mapHash, type RunManifest, resolvedHash } from '../run/manifest.js';
import { readJsonFile, readRunScenario } from '../run/read-run-folder.js';
import { RUN_FILES } from '../run/run-files.js';
import { writeFileNoFollow } from '../util/write-no-follow.js';
import { type RunOutcome, runResolvedSimulated } from './run-simulated.js';

export const REPLAY_FILE = RUN_FILES.replay;

export interface ReplayOptions {
  /** Default: beside the original run. */
  runsDir?: string;
  runId?: string;
  events?: RunEvents;
  shouldStop?: () => boolean;
  command?: readonly string[];
}

export interface ReplayOutcome {
  originalDir: string;
  manifest: RunManifest;
  replay: RunOutcome;
  comparison: RunComparison;
  /** What differs between the run's host and this one (cavsim commit, ns-3, Node, kernel, images). */
  notes: string[];
}

/**
 * `cavsim replay runs/<id>`: runs scenario.resolved.json again in the same runtime, seed and engine,
 * then compares the measurements with the original's. Refused (exit 2) when the run folder has no
 * manifest, or its scenario or map changed since: that would be another experiment.
 */
export async function replayRun(runDir: string, opts: ReplayOptions = {}): Promise<ReplayOutcome> {
  const originalDir = resolve(runDir);
  const manifest = readManifest(originalDir);
  const scenario = readRunScenario(originalDir, new UserInputError(`${runDir} has no ${RUN_FILES.scenario}`));
  if (resolvedHash(scenario) !== manifest.scenario.resolved_sha256) {
    throw new UserInputError(
      `${join(runDir, RUN_FILES.scenario)} changed after the run (its hash is not the manifest's)`,
      [],
      'restore the file, or run the scenario anew with cavsim up',
    );
  }
  if (manifest.map.sha256 !== null && (scenario.mapFile === undefined || mapHash(scenario.mapFile) !== manifest.map.sha256)) {
    throw new UserInputError(
      `map ${scenario.mapFile} changed since run ${manifest.run_id} (or is gone)`,
      [],
      'restore the map the run used (its copy may be in the run folder), or run the scenario anew with cavsim up',
    );
  }
  const notes = hostDifferences(manifest, await hostFacts(hostFactsNeed(manifest.runtime, scenario)));
  const runsDir = opts.runsDir ?? dirname(originalDir);
  const common = {
    runsDir,
    runId: opts.runId ?? freeRunId(runsDir, `${basename(originalDir)}-replay`),
    events: opts.events,
    shouldStop: opts.shouldStop,
    command: opts.command,
  };
  const replay =
    manifest.runtime === 'sim'
      ? await runResolvedSimulated(scenario, common)
      : await (await import('./run-emulated.js')).runResolvedEmulated(scenario, common);
  const comparison = compareRunFolders(originalDir, replay.runDir);
  writeFileNoFollow(
    join(replay.runDir, REPLAY_FILE),
    `${JSON.stringify(
      { of: originalDir, identical: comparison.identical, files: comparison.files, summary: comparison.summary, notes },
      null,
      2,
    )}\n`,
  );
  return { originalDir, manifest, replay, comparison, notes };
}

export function readManifest(runDir: string): RunManifest {
  const file = join(runDir, MANIFEST_FILE);
  if (!existsSync(join(runDir, RUN_FILES.scenario)))
    throw new UserInputError(
      `${runDir} is not a run folder (no ${RUN_FILES.scenario})`,
      [],
      'pass a folder under runs/, e.g. runs/20261122-101530-a3f9',
    );
  if (!existsSync(file))
    throw new UserInputError(
      `${runDir} has no ${MANIFEST_FILE}: it was written by a cavsim older than replay`,
      [],
      'run the scenario again with cavsim up; new runs carry a manifest',
    );
  return readJsonFile(file, new UserInputError(`${runDir} has no ${MANIFEST_FILE}`)) as RunManifest;
}

/** The host facts the run recorded against the same facts asked now. */
function hostDifferences(m: RunManifest, now: HostFacts): string[] {
  const notes: string[] = [];
  const differs = (what: string, then: unknown, current: unknown) => {
    if (JSON.stringify(then) !== JSON.stringify(current))
      notes.push(`${what}: ${String(then ?? 'unknown')} then, ${String(current ?? 'unknown')} now`);
  };
  differs('cavsim version', m.cavsim.version, now.cavsim.version);
  differs('cavsim commit', m.cavsim.commit, now.cavsim.commit);
  differs('ns-3', m.ns3, now.ns3);
  differs('Node.js', m.node, now.node);
  differs('kernel', m.kernel, now.kernel);
  return notes;
}

function freeRunId(runsDir: string, base: string): string {
  if (!existsSync(join(runsDir, base))) return base;
  for (let i = 2; ; i++) if (!existsSync(join(runsDir, `${base}-${i}`))) return `${base}-${i}`;
}
