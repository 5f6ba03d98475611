import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SWEEP_RUNS } from '../../../src/sweep/limits.js';
import { parseSweepValues } from '../../../src/sweep/values.js';

/** Text built from the pieces of the value syntax, so most inputs get past the first check. */
const piece = fc.constantFrom(
  '0',
  '1',
  '10',
  '300',
  '-5',
  '0.5',
  '1e9',
  '1e-9',
  '1e999',
  '1e308',
  'ms',
  's',
  'Mbps',
  '..',
  ':',
  ',',
  ' ',
  'csma',
  'NaN',
  '',
);
const valuesText = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));

describe('sweep values, for any input', () => {
  it('answer with values or a message, never throw, and never give more values than a sweep may run or a value twice', () => {
    fc.assert(
      fc.property(fc.oneof(valuesText, fc.string()), (text) => {
        const r = parseSweepValues(text);
        if (!r.ok) {
          expect(r.message.length).toBeGreaterThan(0);
          return;
        }
        expect(r.values.length).toBeGreaterThan(0);
        expect(r.values.length).toBeLessThanOrEqual(MAX_SWEEP_RUNS);
        expect(new Set(r.values.map((v) => v.text)).size).toBe(r.values.length);
        for (const v of r.values) if (v.value !== undefined) expect(Number.isFinite(v.value)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
