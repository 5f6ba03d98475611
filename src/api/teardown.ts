import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Journal, type TeardownReport } from '../journal/journal.js';
import { listActiveRuns, unregisterActiveRun } from '../run/active-runs.js';
import { defaultRunsDir } from '../run/run-folder.js';
import { findLeftoversByLabel, removeLeftovers } from '../docker/leftovers.js';
import { allUndoers } from '../runtime/docker/run-emulated.js';
import { UserInputError } from '../errors.js';
import type { EmulatedRunDeps } from '../runtime/docker/emulated-deps.js';

export interface RunTeardown {
  runId: string;
  report: TeardownReport;
}

/** Journals of the runs to undo: one run by id, or every run the active index knows. */
function journalsToUndo(target: { runId?: string; all?: boolean }, runsDir: string): { runId: string; journal: string }[] {
  const active = listActiveRuns();
  if (target.all) return active;
  const runId = target.runId!;
  const known = active.find((a) => a.runId === runId);
  if (known) return [known];
  const local = join(runsDir, runId, 'journal.jsonl');
  if (existsSync(local)) return [{ runId, journal: local }];
  throw new UserInputError(`no run ${runId} to tear down`, [`--run: no journal for ${runId} in the active-run index or in ${runsDir}`], 'see `cavsim status` for the runs that still hold resources');
}

/**
 * `cavsim teardown`: replays each run's journal backwards (idempotent; only what the journal
 * names). With --all, Docker resources still labelled with a cavsim run id are removed too, as a
 * safety net for resources created after a journal write that was cut short.
 */
export async function teardownRuns(
  target: { runId?: string; all?: boolean },
  deps: Pick<EmulatedRunDeps, 'docker' | 'hostNet'>,
  runsDir = defaultRunsDir(),
): Promise<RunTeardown[]> {
  const results: RunTeardown[] = [];
  for (const { runId, journal } of journalsToUndo(target, runsDir)) {
    const report = existsSync(journal) ? await Journal.open(journal).teardown(allUndoers(deps)) : { undone: [], failed: [] };
    if (!report.failed.length) unregisterActiveRun(runId);
    results.push({ runId, report });
  }
  if (target.all || target.runId) {
    const leftovers = await findLeftoversByLabel(deps.docker, target.all ? undefined : target.runId).catch(() => []);
    if (leftovers.length) await removeLeftovers(deps.docker, leftovers);
  }
  return results;
}
