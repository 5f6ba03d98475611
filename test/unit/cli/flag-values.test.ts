import { describe, expect, it } from 'vitest';
import { decimal, wholeNumber } from '../../../src/cli/flag-values.js';
import { UserInputError } from '../../../src/errors.js';

describe('flag values', () => {
  const repeat = wholeNumber('--repeat', { min: 1, max: 10_000 });

  it.each(['1', '42', '007', '10000'])('a count in plain digits: %j', (text) => {
    expect(repeat(text)).toBe(Number(text));
  });

  it.each([
    '1e12',
    '1e3',
    '1.5',
    '3.0',
    '0x10',
    '0b1',
    ' 3',
    '3 ',
    '+3',
    '-1',
    '0',
    '',
    'NaN',
    'Infinity',
    '10001',
    '99999999999999999999',
  ])('refuses %j as a count, naming the flag and the range', (text) => {
    expect(() => repeat(text)).toThrow(UserInputError);
    expect(() => repeat(text)).toThrow(`--repeat ${JSON.stringify(text)}: give a whole number from 1 to 10,000, in plain digits`);
  });

  it('says "or more" when only the lower bound matters', () => {
    expect(() => wholeNumber('--jobs', { min: 1, max: Number.MAX_SAFE_INTEGER })('0')).toThrow(
      '--jobs "0": give a whole number of 1 or more',
    );
  });

  it('reads decimals, refusing empty, hex, non-finite and values the flag does not allow', () => {
    const spacing = decimal('--spacing', 'a distance in metres of at least 0.001', (n) => n >= 0.001);
    expect(spacing('0.25')).toBe(0.25);
    expect(spacing('.5')).toBe(0.5);
    expect(spacing('1e-2')).toBe(0.01);
    for (const bad of ['', ' ', '0x10', '1e999', 'NaN', '1e-9', '-1', '0.25m'])
      expect(() => spacing(bad), bad).toThrow(/--spacing .*: give a distance in metres/);
    expect(decimal('--from', 'a time')('-2.5')).toBe(-2.5);
  });
});
