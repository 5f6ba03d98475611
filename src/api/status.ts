import { isRunLive, listActiveRuns, openRunJournal } from '../run/active-runs.js';

export interface RunHoldingResources {
  runId: string;
  state: 'live' | 'kept' | 'orphaned';
  ownerPid: number | null;
  journal: string;
  resources: { kind: string; id: string }[];
}

/** `cavsim status`: every run the active-run index knows, and what its journal still holds. */
export function runsHoldingResources(): RunHoldingResources[] {
  return listActiveRuns().map((a) => ({
    runId: a.runId,
    state: isRunLive(a) ? 'live' : a.kept ? 'kept' : 'orphaned',
    ownerPid: a.owner?.pid ?? null,
    journal: a.journal,
    resources: openRunJournal(a)
      .outstanding()
      .map((e) => ({ kind: e.kind, id: e.id })),
  }));
}
