import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal, type JournalEntry } from '../../../../src/host/journal/journal.js';

const scratch = mkdtempSync(join(tmpdir(), 'cavsim-journal-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let journals = 0;

/** Undoers that log when each undo starts and ends, taking a few milliseconds each. */
function slowUndoers(kinds: string[], log: string[], fail: (e: JournalEntry) => boolean = () => false) {
  let running = 0;
  let most = 0;
  const undo = async (e: JournalEntry) => {
    log.push(`start ${e.id}`);
    most = Math.max(most, ++running);
    await new Promise((r) => setTimeout(r, 5));
    running--;
    log.push(`end ${e.id}`);
    if (fail(e)) throw new Error(`${e.id} would not go`);
    return undefined;
  };
  return { undoers: Object.fromEntries(kinds.map((k) => [k, undo])), most: () => most };
}

describe('journal teardown', () => {
  it('undoes a run of one kind several at a time, and never overlaps entries of different kinds', async () => {
    const journal = Journal.open(join(scratch, `j-${++journals}.jsonl`));
    journal.record('network', 'net', {});
    for (let i = 0; i < 10; i++) journal.record('container', `c${i}`, {});
    journal.record('process', 'ns3', {});
    const log: string[] = [];
    const { undoers, most } = slowUndoers(['network', 'container', 'process'], log);
    const report = await journal.teardown(undoers, 4);
    expect(most()).toBe(4);
    // newest first, kind by kind: the process is gone before any container starts, the network after all
    expect(log.indexOf('end ns3')).toBeLessThan(log.findIndex((l) => l.startsWith('start c')));
    expect(log.indexOf('start net')).toBeGreaterThan(log.lastIndexOf(log.filter((l) => l.startsWith('end c')).at(-1)!));
    expect(report.undone.map((e) => e.id)).toEqual(['ns3', 'c9', 'c8', 'c7', 'c6', 'c5', 'c4', 'c3', 'c2', 'c1', 'c0', 'net']);
    expect(journal.outstanding()).toEqual([]);
  });

  it('keeps going past a failure in a run and reports it, leaving that entry outstanding', async () => {
    const journal = Journal.open(join(scratch, `j-${++journals}.jsonl`));
    for (let i = 0; i < 5; i++) journal.record('link', `l${i}`, {});
    const { undoers } = slowUndoers(['link'], [], (e) => e.id === 'l2');
    const report = await journal.teardown(undoers);
    expect(report.failed.map((f) => [f.entry.id, f.error])).toEqual([['l2', 'l2 would not go']]);
    expect(report.undone.map((e) => e.id)).toEqual(['l4', 'l3', 'l1', 'l0']);
    expect(
      Journal.open(journal.path)
        .outstanding()
        .map((e) => e.id),
    ).toEqual(['l2']);
  });

  it('reports an entry of a kind nobody can undo, and undoes the rest', async () => {
    const journal = Journal.open(join(scratch, `j-${++journals}.jsonl`));
    journal.record('link', 'l0', {});
    journal.record('mystery', 'm0', {});
    const { undoers } = slowUndoers(['link'], []);
    const report = await journal.teardown(undoers);
    expect(report.failed.map((f) => f.error)).toEqual(['no undoer registered for kind "mystery"']);
    expect(report.undone.map((e) => e.id)).toEqual(['l0']);
  });
});
