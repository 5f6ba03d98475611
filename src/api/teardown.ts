import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserInputError } from '../errors.js';
import { pingHosts } from '../host/docker/host-engines.js';
import { findLeftoversByLabel, removeLeftovers } from '../host/docker/leftovers.js';
import { loadHostsFile } from '../host/hosts-file/load-hosts-file.js';
import type { JournalEntry, TeardownReport } from '../host/journal/journal.js';
import { HOSTS_FILE_KIND } from '../host/journal/kinds.js';
import {
  type ActiveRun,
  isRunLive,
  journalCopyOf,
  listActiveRuns,
  markForcedTeardown,
  openRunJournal,
  unregisterActiveRun,
} from '../run/active-runs.js';
import { RUN_FILES } from '../run/run-files.js';
import { defaultRunsDir } from '../run/run-folder.js';
import type { EmulatedRunDeps } from '../runtime/emulated/emulated-deps.js';
import { hostsFileUndoer, journalHostsFile, type ReachedHost, remoteUndoDeps } from '../runtime/emulated/remote-teardown.js';
import { allUndoers } from '../runtime/emulated/run-emulated.js';
import { connectHostEngines } from './host-engines.js';
import { realHostPorts } from './host-ports.js';

export interface RunTeardown {
  runId: string;
  report: TeardownReport;
}

export interface TeardownResult {
  undone: RunTeardown[];
  /** Runs whose owning `cavsim` process is alive: left alone (unless `force`). */
  live: ActiveRun[];
}

/** The runs the active-run index holds resources for (kept, crashed or running): what `--all` would undo. */
export const runsHoldingResources = (): ActiveRun[] => listActiveRuns();

/** Journals of the runs to undo: one run by id, or every run the active index knows. */
function runsToUndo(target: { runId?: string; all?: boolean }, runsDir: string): ActiveRun[] {
  const active = listActiveRuns();
  if (target.all) return active;
  const runId = target.runId!;
  const known = active.find((a) => a.runId === runId);
  if (known) return [known];
  const local = join(runsDir, runId, RUN_FILES.journal);
  if (existsSync(local)) return [{ runId, journal: local }];
  throw new UserInputError(
    `no run ${runId} to tear down`,
    [`--run: no journal for ${runId} in the active-run index or in ${runsDir}`],
    'see `cavsim status` for the runs that still hold resources',
  );
}

/**
 * The ports that undo a journal: this host's, and when the run's cars ran on other hosts, each of
 * those hosts' engines from the hosts file the journal names (one that does not answer is named by
 * the entries it keeps).
 */
async function onEveryHost(
  deps: Pick<EmulatedRunDeps, 'docker' | 'hostNet'>,
  runId: string,
  entries: readonly JournalEntry[],
): Promise<Pick<EmulatedRunDeps, 'docker' | 'hostNet' | 'tunnelHosts'>> {
  const named = journalHostsFile(entries);
  if (!named) return deps;
  const reached: ReachedHost[] = await loadHostsFile(named.file).then(
    (file) =>
      Promise.all(
        connectHostEngines(file).map(async (e) => {
          try {
            await pingHosts([e]);
            return { name: e.host.name, docker: e.docker };
          } catch (err) {
            return { name: e.host.name, problem: (err as Error).message };
          }
        }),
      ),
    (err: unknown) => named.hosts.map((name) => ({ name, problem: `the hosts file ${named.file}: ${(err as Error).message}` })),
  );
  return remoteUndoDeps(deps, runId, entries, reached);
}

/**
 * `cavsim teardown`: replays each run's journal backwards (idempotent; only what the journal
 * names). A run whose owning process is still alive is live: it is listed and left alone unless
 * `force`. Docker resources labelled with the id of a run being torn down are removed too, as a
 * safety net for resources created after a journal write that was cut short.
 */
export async function teardownRuns(
  target: { runId?: string; all?: boolean; force?: boolean },
  deps: Pick<EmulatedRunDeps, 'docker' | 'hostNet'> = realHostPorts(),
  runsDir = defaultRunsDir(),
): Promise<TeardownResult> {
  const candidates = runsToUndo(target, runsDir);
  const live = target.force ? [] : candidates.filter(isRunLive);
  const undone: RunTeardown[] = [];
  for (const run of candidates.filter((r) => !live.includes(r))) {
    if (isRunLive(run)) markForcedTeardown(run.runId);
    const journalKept = existsSync(run.journal) || existsSync(journalCopyOf(run.runId));
    const journal = journalKept ? openRunJournal(run) : undefined;
    const report = journal
      ? await journal.teardown({
          ...allUndoers(await onEveryHost(deps, run.runId, journal.outstanding())),
          [HOSTS_FILE_KIND]: hostsFileUndoer(journal),
        })
      : { undone: [], failed: [], leftAlone: [] };
    if (!report.failed.length) unregisterActiveRun(run.runId);
    undone.push({ runId: run.runId, report });
  }
  const liveIds = new Set(
    listActiveRuns()
      .filter(isRunLive)
      .map((r) => r.runId),
  );
  const swept = target.all ? undefined : target.runId;
  const leftovers = (await findLeftoversByLabel(deps.docker, swept).catch(() => [])).filter((l) => target.force || !liveIds.has(l.runId));
  if (leftovers.length) await removeLeftovers(deps.docker, leftovers);
  return { undone, live };
}
