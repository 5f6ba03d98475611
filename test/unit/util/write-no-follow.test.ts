import { closeSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../../src/host/journal/journal.js';
import { CsvLog } from '../../../src/measurement/csv-log.js';
import { openForWriting, writeFileNoFollow } from '../../../src/util/write-no-follow.js';

/** A folder with a file outside the run ("the host's") and a link to it planted at `name`. */
function planted(name: string) {
  const dir = mkdtempSync(join(tmpdir(), 'cavsim-nofollow-'));
  const victim = join(dir, 'host-file');
  writeFileSync(victim, 'precious\n');
  symlinkSync(victim, join(dir, name));
  return { dir, victim, path: join(dir, name) };
}

describe('files cavsim writes never follow a link planted at their name', () => {
  it('opening for writing or appending refuses the link (ELOOP), the target keeps its bytes', () => {
    for (const how of ['truncate', 'append'] as const) {
      const { victim, path } = planted('ns3.log');
      expect(() => openForWriting(path, how)).toThrow(/ELOOP/);
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    }
    const { victim, path } = planted('.summary.json.tmp');
    expect(() => writeFileNoFollow(path, '{}')).toThrow(/ELOOP/);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('a CSV log and the journal refuse a planted link too', () => {
    const csv = planted('vehicles.csv');
    expect(() => new CsvLog(csv.path, ['t'])).toThrow(/ELOOP/);
    expect(readFileSync(csv.victim, 'utf8')).toBe('precious\n');
    const journal = planted('journal.jsonl');
    expect(() => Journal.open(journal.path).record('host-link', 'eth0', {})).toThrow(/is a link, not a journal/);
    expect(readFileSync(journal.victim, 'utf8')).toBe('precious\n');
  });

  it('writes regular files as before', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-nofollow-'));
    writeFileNoFollow(join(dir, 'a.json'), 'one\n');
    writeFileNoFollow(join(dir, 'a.json'), 'two\n');
    const fd = openForWriting(join(dir, 'a.json'), 'append');
    writeSync(fd, 'three\n');
    closeSync(fd);
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('two\nthree\n');
  });
});
