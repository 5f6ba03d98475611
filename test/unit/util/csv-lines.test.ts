import { describe, expect, it } from 'vitest';
import { CsvHeader, LineAssembler } from '../../../src/util/csv-lines.js';

describe('LineAssembler', () => {
  it('holds back a line until its newline arrives, wherever the chunks break', () => {
    const text = 't,x\n0,1\n0.01,2\r\n0.02,3\n';
    const expected = ['t,x', '0,1', '0.01,2', '0.02,3'];
    for (let cut = 0; cut <= text.length; cut++) {
      const a = new LineAssembler();
      expect([...a.push(text.slice(0, cut)), ...a.push(text.slice(cut))]).toEqual(expected);
    }
  });

  it('returns nothing for a half-written row', () => {
    const a = new LineAssembler();
    expect(a.push('t,x\n0,1')).toEqual(['t,x']);
    expect(a.push('2')).toEqual([]);
    expect(a.push('\n')).toEqual(['0,12']);
  });
});

describe('CsvHeader', () => {
  it('finds columns by name, -1 when absent', () => {
    const h = new CsvHeader('t_s,vehicle,x_m');
    expect([h.index('vehicle'), h.index('x_m'), h.index('nope')]).toEqual([1, 2, -1]);
  });
});
