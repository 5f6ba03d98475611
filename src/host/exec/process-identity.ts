import { readFileSync } from 'node:fs';
import type { JournalEntry, Undoer } from '../journal/journal.js';
import { NS3_PROCESS_KIND } from '../journal/kinds.js';

/**
 * A pid alone can be reused after the process dies; the pair (pid, start time in clock ticks since
 * boot, field 22 of /proc/<pid>/stat) names one process for the lifetime of the machine.
 */
export interface ProcessIdentity {
  pid: number;
  startTime: string;
}

export function readStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // comm (field 2) may contain spaces and parentheses: fields after it start past the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19]; // field 22 overall = index 19 after state (field 3)
}

export function isSameProcessAlive(id: ProcessIdentity): boolean {
  return readStartTime(id.pid) === id.startTime && !isZombie(id.pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SIGTERM, wait up to `graceMs`, then SIGKILL; does nothing to a pid now held by another process. */
export async function stopProcess(id: ProcessIdentity, graceMs = 3000): Promise<void> {
  if (!isSameProcessAlive(id)) return;
  signal(id.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isSameProcessAlive(id)) return;
    await sleep(25);
  }
  if (isSameProcessAlive(id)) signal(id.pid, 'SIGKILL');
  while (isSameProcessAlive(id)) await sleep(10);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** Undoer for `ns3.process` entries: `undo` is a ProcessIdentity. */
export const processUndoers: Record<string, Undoer> = {
  [NS3_PROCESS_KIND]: async (e: JournalEntry) => stopProcess(e.undo as unknown as ProcessIdentity),
};
