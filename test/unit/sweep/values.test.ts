import { describe, expect, it } from 'vitest';
import { parseSweepValues, unitFactor } from '../../../src/sweep/values.js';

const texts = (input: string) => {
  const r = parseSweepValues(input);
  if (!r.ok) throw new Error(r.message);
  return r.values.map((v) => v.text);
};

describe('sweep value syntax', () => {
  it.each([
    ['10..300ms:10ms', Array.from({ length: 30 }, (_, i) => `${10 + 10 * i}ms`)],
    [
      '10..300ms',
      [
        '10ms',
        '42.222222ms',
        '74.444444ms',
        '106.666667ms',
        '138.888889ms',
        '171.111111ms',
        '203.333333ms',
        '235.555556ms',
        '267.777778ms',
        '300ms',
      ],
    ],
    ['0..1:0.25', ['0', '0.25', '0.5', '0.75', '1']],
    ['0..1:0.1', ['0', '0.1', '0.2', '0.3', '0.4', '0.5', '0.6', '0.7', '0.8', '0.9', '1']],
    ['10..25ms:10ms', ['10ms', '20ms']],
    ['10ms..1s:500ms', ['0.01s', '0.51s']],
    ['0.01..0.3s:100ms', ['0.01s', '0.11s', '0.21s']],
    ['10,100,200,300ms', ['10ms', '100ms', '200ms', '300ms']],
    ['10ms,1s', ['10ms', '1s']],
    ['5', ['5']],
    ['100ms', ['100ms']],
    ['7..7', ['7']],
    ['true,false', ['true', 'false']],
    ['csma', ['csma']],
  ])('%s', (input, expected) => {
    expect(texts(input)).toEqual(expected);
  });

  it('gives numbers in the unit of the list or range, for tables and plots', () => {
    const r = parseSweepValues('10ms,1s');
    expect(r.ok && r.values.map((v) => [v.value, v.unit])).toEqual([
      [0.01, 's'],
      [1, 's'],
    ]);
    const range = parseSweepValues('10..300ms');
    expect(range.ok && range.values.at(-1)).toEqual({ text: '300ms', value: 300, unit: 'ms' });
    const words = parseSweepValues('true,false');
    expect(words.ok && words.values[0].value).toBeUndefined();
  });

  it.each([
    ['', /no values/],
    ['300..10ms', /backwards/],
    ['10..300ms:0ms', /greater than zero/],
    ['10..300ms:5Mbps', /does not convert/],
    ['10ms..300Mbps', /do not convert/],
    ['a..b', /must be numbers/],
    ['10,,20', /empty item/],
    ['10,csma', /mixes numbers and words/],
    ['10..20..30', /not a range/],
    ['0..1e9:1', /gives 1,000,000,001 values, more than the 100,000 runs a sweep may plan; use a larger step/],
    ['10..20ms:1e-9ms', /more than the 100,000 runs/],
    ['-1e15..1e15:1e-300', /gives too many values/],
    ['10..1e999ms', /must be numbers/],
    ['1e308..1.7e308', /must be numbers \(at most 1e15\)/],
    ['10..300:10ms', /the step's unit ms does not convert to no unit \(write it after the last number/],
    ['10ms,20', /ms does not convert to no unit/],
    ['10,10ms', /gives 10ms twice/],
    ['10ms,0.01s', /twice/],
    ['csma,csma', /gives csma twice/],
    ['0..0.000001', /twice \(values are kept to 6 decimals\)/],
    ['0..0.00001:0.0000001', /twice .*use a larger step/],
  ])('rejects %j', (input, message) => {
    const r = parseSweepValues(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it('converts between units of one family only', () => {
    expect(unitFactor('ms', 's')).toBe(0.001);
    expect(unitFactor('Mbps', 'kbps')).toBe(1000);
    expect(unitFactor('ms', 'Mbps')).toBeUndefined();
    expect(unitFactor('', 'ms')).toBeUndefined();
  });
});
