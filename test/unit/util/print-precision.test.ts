import { describe, expect, it } from 'vitest';
import { PRINT_DECIMALS, printed, printedFields, unitOfField } from '../../../src/util/print-precision.js';

describe('printed numbers: one precision per unit', () => {
  it('rounds float noise away at its unit: 6 decimals of s, m, m/s (1 µs, 1 µm), 3 of ms and dB', () => {
    expect(printed(0.6999999999999977, 's')).toBe(0.7);
    expect(printed(15.740000000000002, 'm')).toBe(15.74);
    expect(printed(10.190666666, 'ms')).toBe(10.191);
    expect(printed(-87.123456, 'dbm')).toBe(-87.123);
    expect(printed(0.1 + 0.2)).toBe(0.3);
    expect(printed(-0.0000001, 's')).toBe(0);
    expect(Object.is(printed(-0.0000001, 's'), 0)).toBe(true);
    for (const v of [3, -7, 0, Infinity, Number.NaN]) expect(printed(v, 'ms')).toBe(v);
    expect(PRINT_DECIMALS.s).toBe(6);
  });

  it('takes the unit from a field name, and rounds every number of a detail by it', () => {
    expect([
      unitOfField('ttc_s'),
      unitOfField('latency_ms'),
      unitOfField('gap_m'),
      unitOfField('brake_mps2'),
      unitOfField('about'),
    ]).toEqual(['s', 'ms', 'm', 'mps2', 'other']);
    expect(
      printedFields({
        ttc_s: 0.6999999999999977,
        age_ms: 1.23456,
        about: 'car1',
        points: [0.30000000000000004],
        nested: { x_m: 1.0000001 },
      }),
    ).toEqual({ ttc_s: 0.7, age_ms: 1.235, about: 'car1', points: [0.3], nested: { x_m: 1 } });
  });
});
