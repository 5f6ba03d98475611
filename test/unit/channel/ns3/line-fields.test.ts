import { describe, expect, it } from 'vitest';
import { LineFields } from '../../../../src/channel/ns3/lockstep/line-fields.js';

describe('fields of an ns-3 outcome line, read in place', () => {
  it('gives what split and Number give, field after field', () => {
    const lines = [
      'L 12 3 1500000000 below-sensitivity -91.234567 0',
      'R 1 0 0 nan -',
      'R 9007199254740993 7 42 -80.5 1',
      'L x1 2 3 rx-error nan -',
      'R  5 6 7 8',
      'D -1',
    ];
    const f = new LineFields();
    for (const line of lines) {
      const parts = line.split(' ');
      f.reset(line);
      expect(f.text()).toBe(parts[0]);
      for (const part of parts.slice(1, 4)) {
        const got = f.integer();
        const want = /^\d*$/.test(part) ? Number(part) : NaN;
        expect(Object.is(got, want), `${line}: ${part}`).toBe(true);
      }
      for (const part of parts.slice(4)) expect(f.text()).toBe(part);
    }
  });

  it('reads a negative or fractional number as not a whole number', () => {
    const f = new LineFields().reset('-1 2.5 7');
    expect(f.integer()).toBeNaN();
    expect(f.integer()).toBeNaN();
    expect(f.integer()).toBe(7);
  });
});
