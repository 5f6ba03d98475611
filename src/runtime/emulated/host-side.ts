import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createJournaledDocker, dockerUndoers, type JournaledDocker } from '../../host/docker/journaled.js';
import { processUndoers } from '../../host/exec/process-identity.js';
import type { Journal, Undoer } from '../../host/journal/journal.js';
import { HOSTS_FILE_KIND } from '../../host/journal/kinds.js';
import { assertPlannedLinksFree } from '../../host/network/set-up.js';
import { tunnelUndoers } from '../../host/network/tunnel-apply.js';
import { hostNetUndoers } from '../../host/network/undoers.js';
import { markRunKept, openRunJournal, registerActiveRun, takeForcedTeardown, unregisterActiveRun } from '../../run/active-runs.js';
import { RUN_FILES } from '../../run/run-files.js';
import type { RunSession } from '../../run/run-session.js';
import { writeFileNoFollow } from '../../util/write-no-follow.js';
import type { EmulatedRunDeps } from './emulated-deps.js';
import { type EmulatedRunPlan, remoteContainerHosts } from './plan-emulated.js';
import { hostsFileUndoer } from './remote-teardown.js';
import type { RunPhases } from './run-phases.js';

export function allUndoers(deps: Pick<EmulatedRunDeps, 'docker' | 'hostNet' | 'tunnelHosts'>): Record<string, Undoer> {
  return {
    ...dockerUndoers(deps.docker),
    ...hostNetUndoers(deps.hostNet),
    ...processUndoers,
    ...(deps.tunnelHosts ? tunnelUndoers(deps.tunnelHosts) : {}),
    [HOSTS_FILE_KIND]: async () => {},
  };
}

/**
 * Everything an emulated run creates on the host, through its journal: each container, network,
 * link, rule and process is written there with its inverse before it exists. Opened, it registers
 * its own end on the session: the containers' logs are saved, then the journal is replayed
 * backwards (the teardown), unless a healthy run was kept. The run is indexed as active (and so
 * undone by `cavsim teardown`) only once `claim` found the planned names free.
 */
export class HostSide {
  readonly journal: Journal;
  readonly docker: JournaledDocker;
  private registered = false;
  private kept = false;
  /** Set when the teardown could not undo everything: what is left and the command that undoes it. */
  leftovers?: string;

  private constructor(
    journalPath: string,
    private readonly deps: EmulatedRunDeps,
    private readonly plan: EmulatedRunPlan,
    private readonly phases: RunPhases,
    private readonly emit: (phase: string, detail?: string) => void,
  ) {
    this.journal = openRunJournal({ runId: plan.runId, journal: journalPath });
    const hostOf = remoteContainerHosts(plan);
    this.docker = createJournaledDocker(deps.docker, this.journal, plan.runId, (name) => hostOf.get(name));
  }

  static open(
    session: RunSession,
    deps: EmulatedRunDeps,
    plan: EmulatedRunPlan,
    phases: RunPhases,
    emit: (phase: string, detail?: string) => void,
  ): HostSide {
    const host = new HostSide(session.folder.file(RUN_FILES.journal), deps, plan, phases, emit);
    session.defer('the host side (container logs, teardown)', () => host.end(session.folder.file('logs')));
    return host;
  }

  /** A name of the host's that the plan needs (a user's link) refuses the run before it creates anything. */
  async claim(): Promise<void> {
    await assertPlannedLinksFree(this.plan.hostNet, this.deps.hostNet, this.journal);
    // Indexed right before its first host resource: a run refused earlier leaves no entry behind.
    registerActiveRun(this.plan.runId, this.journal.path);
    this.registered = true;
  }

  /** Set when `cavsim teardown --force` undid the run while it ran. */
  forcedTeardown(): { pid: number } | undefined {
    return this.registered ? takeForcedTeardown(this.plan.runId) : undefined;
  }

  /** A healthy run with --keep: nothing is undone, and `cavsim teardown --run` undoes it later. */
  keep(): void {
    this.kept = true;
  }

  private async end(logsDir: string): Promise<void> {
    // cars on other hosts: a host that stopped answering is named and its entries kept, not waited on
    const ports = this.deps.endPorts ? await this.deps.endPorts(this.journal.outstanding()) : this.deps;
    await saveContainerLogs(ports, this.plan, logsDir);
    if (this.kept) {
      markRunKept(this.plan.runId);
      this.emit('kept', `still up; undo with: cavsim teardown --run ${this.plan.runId}`);
    } else if (this.registered) {
      this.emit('teardown', 'undoing everything the run created');
      const report = await this.phases.time('teardown', () =>
        this.journal.teardown({ ...allUndoers(ports), [HOSTS_FILE_KIND]: hostsFileUndoer(this.journal) }),
      );
      if (!report.failed.length) unregisterActiveRun(this.plan.runId);
      else
        this.leftovers = `teardown left ${report.failed.map((f) => `${f.entry.kind} ${f.entry.id} (${f.error})`).join('; ')}; undo them with \`cavsim teardown --run ${this.plan.runId}\``;
    }
  }
}

async function saveContainerLogs(deps: Pick<EmulatedRunDeps, 'docker'>, plan: EmulatedRunPlan, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const c of [plan.simulator, ...plan.vehicles, ...plan.v2vRelays]) {
    try {
      const text = await deps.docker.logs?.(c.name);
      if (text !== undefined) writeFileNoFollow(join(dir, `${c.name}.log`), text);
    } catch {
      // A container that never started has no logs; the summary says why the run failed.
    }
  }
}
