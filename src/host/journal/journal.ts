import { appendFileSync, closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { inParallel } from '../../util/in-parallel.js';
import { openForWriting } from '../../util/write-no-follow.js';

/**
 * One host resource and what undoes it. `kind` selects the undoer; `undo` holds everything the
 * undoer needs (names, ids, exact argv), so teardown works from the file alone after kill -9.
 */
export interface JournalEntry {
  seq: number;
  kind: string;
  id: string;
  undo: Record<string, unknown>;
  at: string;
}

type Line = { type: 'intent'; entry: JournalEntry } | { type: 'undone'; seq: number; at: string };

/**
 * Undoes one resource. Must be idempotent: a resource that is already gone counts as success. Returns
 * a reason when the named resource exists but is not this run's (cavsim never created it): it is left alone.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: an async function that returns nothing is a Promise<void>
export type Undoer = (entry: JournalEntry) => Promise<void | { notOurs: string }>;

export interface TeardownReport {
  undone: JournalEntry[];
  failed: { entry: JournalEntry; error: string }[];
  /** Entries whose name is held by something cavsim did not create (e.g. a name clash at creation). */
  leftAlone: { entry: JournalEntry; reason: string }[];
}

/**
 * Append-only, fsynced journal. An entry is written *before* its resource is created, so a crash
 * between the two leaves an entry whose undo finds nothing to remove, never an orphan.
 */
export class Journal {
  private nextSeq: number;

  private constructor(
    readonly path: string,
    private lines: Line[],
    /** Every line also goes here: a copy that outlives the run folder (deleted by a user, say). */
    private readonly copy?: string,
  ) {
    this.nextSeq = lines.reduce((max, l) => (l.type === 'intent' ? Math.max(max, l.entry.seq) : max), 0) + 1;
  }

  static open(path: string, copy?: string): Journal {
    mkdirSync(dirname(path), { recursive: true });
    if (copy) mkdirSync(dirname(copy), { recursive: true });
    // Teardown replays what this file says: a link planted at its name is not read.
    if (existsSync(path) && lstatSync(path).isSymbolicLink())
      throw new Error(`${path} is a link, not a journal cavsim wrote; nothing is read through it`);
    return new Journal(path, existsSync(path) ? parseLines(readFileSync(path, 'utf8')) : [], copy);
  }

  record(kind: string, id: string, undo: Record<string, unknown>): JournalEntry {
    const entry: JournalEntry = { seq: this.nextSeq++, kind, id, undo, at: new Date().toISOString() };
    this.append({ type: 'intent', entry });
    return entry;
  }

  markUndone(seq: number): void {
    this.append({ type: 'undone', seq, at: new Date().toISOString() });
  }

  /** Entries not yet undone, oldest first. */
  outstanding(): JournalEntry[] {
    const undone = new Set(this.lines.flatMap((l) => (l.type === 'undone' ? [l.seq] : [])));
    return this.lines.flatMap((l) => (l.type === 'intent' && !undone.has(l.entry.seq) ? [l.entry] : []));
  }

  /**
   * Replays outstanding entries newest first. Keeps going past failures and reports them all.
   * Consecutive entries of one kind (a fleet's containers, its links) are independent of each
   * other and undone `atOnce` at a time; an entry of another kind waits for them, as it always did.
   */
  async teardown(undoers: Record<string, Undoer>, atOnce = UNDONE_AT_ONCE): Promise<TeardownReport> {
    const report: TeardownReport = { undone: [], failed: [], leftAlone: [] };
    for (const wave of sameKindRuns(this.outstanding().reverse())) {
      const outcomes = await inParallel(wave, atOnce, (entry) => this.undoOne(entry, undoers[entry.kind]));
      for (const o of outcomes) {
        if ('error' in o) report.failed.push(o);
        else if ('reason' in o) report.leftAlone.push(o);
        else report.undone.push(o.entry);
      }
    }
    return report;
  }

  private async undoOne(
    entry: JournalEntry,
    undo: Undoer | undefined,
  ): Promise<{ entry: JournalEntry } | { entry: JournalEntry; error: string } | { entry: JournalEntry; reason: string }> {
    if (!undo) return { entry, error: `no undoer registered for kind "${entry.kind}"` };
    try {
      const outcome = await undo(entry);
      this.markUndone(entry.seq);
      return outcome ? { entry, reason: outcome.notOurs } : { entry };
    } catch (err) {
      return { entry, error: err instanceof Error ? err.message : String(err) };
    }
  }

  private append(line: Line): void {
    this.lines.push(line);
    for (const file of this.copy ? [this.path, this.copy] : [this.path]) {
      const fd = openForWriting(file, 'append');
      try {
        appendFileSync(fd, `${JSON.stringify(line)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }
}

/** Entries undone at once within a run of one kind: Docker and the kernel serialise much of it anyway. */
const UNDONE_AT_ONCE = 6;

function sameKindRuns(entries: readonly JournalEntry[]): JournalEntry[][] {
  const runs: JournalEntry[][] = [];
  for (const e of entries) {
    const last = runs.at(-1);
    if (last && last[0].kind === e.kind) last.push(e);
    else runs.push([e]);
  }
  return runs;
}

function parseLines(text: string): Line[] {
  // A torn last line (crash mid-write) is ignored: its resource was never created.
  return text
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Line];
      } catch {
        return [];
      }
    });
}
