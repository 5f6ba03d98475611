import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CsvLog, csvNumber, formatMicro, writeMicro } from '../../../src/measurement/csv-log.js';
import { createRandom } from '../../../src/util/random.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-csv-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const written = (v: number) => {
  const buf = Buffer.alloc(64);
  return buf.toString('latin1', 0, writeMicro(buf, 0, v));
};

describe('CSV numbers written as bytes', () => {
  it('are the text formatMicro gives, for edge cases and a million random values over every magnitude', () => {
    const edges = [
      0,
      -0,
      1,
      -1,
      0.5,
      -0.5,
      1e-7,
      -1e-7,
      4e-7,
      5e-7,
      -5e-7,
      0.0000015,
      123.000001,
      -123.4,
      1e6,
      2 ** 31 - 1,
      2 ** 31,
      -(2 ** 31),
      2 ** 31 - 0.5,
      2 ** 53,
      1e21,
      -1e21,
      9.999999999,
      0.1 + 0.2,
      NaN,
      Infinity,
      -Infinity,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
      1e15 + 0.3,
    ];
    for (const v of edges) expect(written(v), String(v)).toBe(formatMicro(v));
    const draw = createRandom(7);
    for (let i = 0; i < 1_000_000; i++) {
      const v = (draw() - 0.5) * 10 ** Math.floor(draw() * 24 - 8);
      const text = written(v);
      if (text !== formatMicro(v)) expect(text, String(v)).toBe(formatMicro(v));
    }
  });

  it('csvNumber is the number read back from that text, to the sign of zero, without the text', () => {
    const edges = [
      0,
      -0,
      1,
      -1,
      0.5,
      -0.5,
      1e-7,
      -1e-7,
      -4e-7,
      4e-7,
      5e-7,
      -5e-7,
      0.0000015,
      123.000001,
      -123.4,
      1e6,
      2 ** 53,
      1e21,
      -1e21,
      9.999999999,
      0.1 + 0.2,
      NaN,
      Infinity,
      -Infinity,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
      -Number.MIN_VALUE,
      1e15 + 0.3,
    ];
    for (const v of edges) expect(Object.is(csvNumber(v), Number(formatMicro(v))), String(v)).toBe(true);
    const draw = createRandom(11);
    for (let i = 0; i < 1_000_000; i++) {
      const v = (draw() - 0.5) * 10 ** Math.floor(draw() * 24 - 8);
      if (!Object.is(csvNumber(v), Number(formatMicro(v)))) expect(csvNumber(v), String(v)).toBe(Number(formatMicro(v)));
    }
  });

  it('a log writes the same file whether or not something listens to its rows', () => {
    const rows = [
      [0.01, 'car0', -1.5, 3, true, undefined, 'a, "b"'],
      [1e-7, 'car1', 2 ** 40 + 0.25, -0, false, 12.3456789, ''],
    ];
    const plain = new CsvLog(join(dir, 'plain.csv'), ['t', 'name', 'x', 'n', 'flag', 'opt', 'text']);
    const heard = new CsvLog(join(dir, 'heard.csv'), ['t', 'name', 'x', 'n', 'flag', 'opt', 'text']);
    const cells: string[][] = [];
    heard.onRow = (c) => cells.push(c);
    for (const r of rows) {
      plain.add(r);
      heard.add(r);
    }
    plain.close();
    heard.close();
    const text = readFileSync(join(dir, 'plain.csv'), 'utf8');
    expect(readFileSync(join(dir, 'heard.csv'), 'utf8')).toBe(text);
    expect(text).toBe('t,name,x,n,flag,opt,text\n0.01,car0,-1.5,3,true,,"a, ""b"""\n0,car1,1099511627776.25,0,false,12.345679,\n');
    expect(cells[1]).toEqual(['0', 'car1', '1099511627776.25', '0', 'false', '12.345679', '']);
  });
});
