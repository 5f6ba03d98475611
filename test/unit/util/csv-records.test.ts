import { describe, expect, it } from 'vitest';
import { csvCells, readCsvRecords } from '../../../src/util/csv-records.js';

describe('reading CSV through csv-parse', () => {
  it.each([
    ['1.3,car0,brake-sent,', ['1.3', 'car0', 'brake-sent', '']],
    ['1.3,car0,x,"{""a"":1,""b"":""c""}"', ['1.3', 'car0', 'x', '{"a":1,"b":"c"}']],
    ['"a,b",c', ['a,b', 'c']],
  ])('reads the quoting csv-stringify writes: %s', (line, cells) => {
    expect(csvCells([line])).toEqual([cells]);
  });

  it('numbers records by the line they are on, skipping blank lines and, when asked, # comments', () => {
    expect(readCsvRecords('# a path\nx,y\n\n1,2\n# note\n3, 4\n', { comments: true })).toEqual([
      { cells: ['x', 'y'], line: 2 },
      { cells: ['1', '2'], line: 4 },
      { cells: ['3', '4'], line: 6 },
    ]);
  });

  it('takes CRLF and LF lines in one file alike', () => {
    expect(readCsvRecords('x,y\r\n1,2\n3,4\r\n').map((r) => [r.cells, r.line])).toEqual([
      [['x', 'y'], 1],
      [['1', '2'], 2],
      [['3', '4'], 3],
    ]);
  });

  it('names the line of a malformed file', () => {
    expect(() => readCsvRecords('x,y\n1,"2\n')).toThrow(/line \d+: not valid CSV/);
  });

  it('drops a damaged line of a tailed file and keeps the others', () => {
    expect(csvCells(['1,a', '2,"b', '3,c'])).toEqual([
      ['1', 'a'],
      ['3', 'c'],
    ]);
  });

  it('has nothing to say about no lines', () => {
    expect(csvCells([])).toEqual([]);
  });
});
