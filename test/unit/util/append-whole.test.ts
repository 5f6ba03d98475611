import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CsvLog } from '../../../src/measurement/csv-log.js';
import { appendWhole, NoSpaceError } from '../../../src/util/append-whole.js';

describe('appending whole rows', () => {
  it('appends at the end and returns the new size', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cavsim-append-')), 'a.csv');
    const fd = openSync(file, 'w');
    let size = appendWhole(fd, file, Buffer.from('a,b\n'), 0);
    size = appendWhole(fd, file, Buffer.from('1,2\n3,4\n'), size, 4);
    closeSync(fd);
    expect(size).toBe(8);
    expect(readFileSync(file, 'utf8')).toBe('a,b\n1,2\n');
  });

  it('names a full filesystem as the runs folder being full (/dev/full fails every write with ENOSPC)', () => {
    const fd = openSync('/dev/full', 'w');
    try {
      expect(() => appendWhole(fd, '/runs/x/vehicles.csv', Buffer.from('1,2\n'), 0)).toThrow(NoSpaceError);
      expect(() => appendWhole(fd, '/runs/x/vehicles.csv', Buffer.from('1,2\n'), 0)).toThrow(
        /the runs folder is full \(ENOSPC\): vehicles.csv could not grow/,
      );
    } finally {
      closeSync(fd);
    }
  });

  it('a CSV log whose header cannot be written refuses to open, naming the full runs folder', () => {
    expect(() => new CsvLog('/dev/full', ['t', 'x'])).toThrow(NoSpaceError);
  });
});
