import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { UserInputError } from '../errors.js';
import { isSameProcessAlive, type ProcessIdentity, readStartTime } from '../host/exec/process-identity.js';
import { Journal } from '../host/journal/journal.js';
import type { ChosenFolder } from '../util/writable-folder.js';

/**
 * An index of runs that may still hold host resources, kept outside any project folder so
 * `cavsim teardown --all` finds every journal whatever directory it is called from, even after
 * the run's process was killed with SIGKILL.
 */
export const stateDir = (env = process.env) => chosenStateDir(env).path;

/** The index folder and what set it (an empty variable counts as unset), for messages. */
export function chosenStateDir(env = process.env): ChosenFolder {
  if (env.CAVSIM_STATE_DIR?.trim()) return { path: resolve(env.CAVSIM_STATE_DIR), origin: `CAVSIM_STATE_DIR=${env.CAVSIM_STATE_DIR}` };
  if (env.XDG_STATE_HOME?.trim())
    return { path: resolve(env.XDG_STATE_HOME, 'cavsim', 'active'), origin: `XDG_STATE_HOME=${env.XDG_STATE_HOME}` };
  return { path: join(homedir(), '.local', 'state', 'cavsim', 'active'), origin: 'the active-run index ~/.local/state/cavsim/active' };
}

export interface ActiveRun {
  runId: string;
  journal: string;
  /** The `cavsim` process running it; absent once the run is kept (`up --keep`) or for old entries. */
  owner?: ProcessIdentity;
  /** Left up on purpose by `up --keep`, until `cavsim teardown --run`. */
  kept?: boolean;
}

/** This process, as the owner of the runs it starts. */
export function thisProcess(): ProcessIdentity {
  return { pid: process.pid, startTime: readStartTime(process.pid) ?? 'unknown' };
}

export function registerActiveRun(runId: string, journal: string, dir = stateDir(), owner: ProcessIdentity = thisProcess()): void {
  write(dir, { runId, journal, owner });
}

/** The run stays up after its owner exits: only `teardown --run` (or `--all`) ends it. */
export function markRunKept(runId: string, dir = stateDir()): void {
  const run = listActiveRuns(dir).find((r) => r.runId === runId);
  if (run) write(dir, { runId, journal: run.journal, kept: true });
}

/** Where a run's journal is copied, beside the index: teardown still finds it if the run folder is deleted. */
export const journalCopyOf = (runId: string, dir = stateDir()) => join(dir, `${runId}.journal.jsonl`);

/** A run's journal, writing to its copy too: the run folder's, else the copy (that folder is gone). */
export function openRunJournal(run: Pick<ActiveRun, 'runId' | 'journal'>, dir = stateDir()): Journal {
  const copy = journalCopyOf(run.runId, dir);
  if (!existsSync(run.journal) && existsSync(copy)) return Journal.open(copy);
  return Journal.open(run.journal, copy);
}

export function unregisterActiveRun(runId: string, dir = stateDir()): void {
  rmSync(join(dir, `${runId}.json`), { force: true });
  rmSync(journalCopyOf(runId, dir), { force: true });
}

/**
 * `cavsim teardown --force` is about to undo a live run: it says so first, so the run, when its
 * components vanish, reports who ended it rather than blaming the first one to go.
 */
export function markForcedTeardown(runId: string, dir = stateDir()): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${runId}.forced`), `${JSON.stringify({ pid: process.pid })}\n`);
}

/** Whether a forced teardown ended this run (its pid); the mark is consumed. */
export function takeForcedTeardown(runId: string, dir = stateDir()): { pid: number } | undefined {
  const file = join(dir, `${runId}.forced`);
  try {
    const mark = JSON.parse(readFileSync(file, 'utf8')) as { pid: number };
    rmSync(file, { force: true });
    return mark;
  } catch {
    return undefined;
  }
}

/** A run whose owning process still runs is live: nobody but that process may tear it down. */
export function isRunLive(run: ActiveRun): boolean {
  return run.owner !== undefined && isSameProcessAlive(run.owner);
}

/** Entries that cannot be read or are not an entry (a foreign or cut file) are left out. */
export function listActiveRuns(dir = stateDir()): ActiveRun[] {
  if (!existsSync(dir)) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new UserInputError(
      `${dir}: the active-run index cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      [],
      'set CAVSIM_STATE_DIR to a folder you can write',
    );
  }
  return names
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      try {
        const run = JSON.parse(readFileSync(join(dir, f), 'utf8')) as ActiveRun | null;
        return typeof run?.runId === 'string' && typeof run.journal === 'string' ? [run] : [];
      } catch {
        return [];
      }
    });
}

function write(dir: string, run: ActiveRun): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${run.runId}.json`);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(run)}\n`);
  renameSync(`${file}.tmp`, file);
}
