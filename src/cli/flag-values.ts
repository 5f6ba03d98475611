import { UserInputError } from '../errors.js';

/**
 * A flag parser for a count or a port: plain decimal digits only, within [min, max]. `1e3`, `1.5`,
 * `0x10`, `+3`, ` 3` and `` are refused rather than read as whatever Number() makes of them.
 */
export const wholeNumber =
  (flag: string, { min, max }: { min: number; max: number }) =>
  (text: string): number => {
    const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
    const range = max === Number.MAX_SAFE_INTEGER ? `of ${min} or more` : `from ${min} to ${max.toLocaleString('en-US')}`;
    if (!(n >= min && n <= max)) throw new UserInputError(`${flag} ${JSON.stringify(text)}: give a whole number ${range}, in plain digits`);
    return n;
  };

const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** A flag parser for a measured quantity: a finite decimal number that `accept` allows; `what` says what to give. */
export const decimal =
  (flag: string, what: string, accept: (n: number) => boolean = () => true) =>
  (text: string): number => {
    const n = DECIMAL.test(text) ? Number(text) : NaN;
    if (!Number.isFinite(n) || !accept(n)) throw new UserInputError(`${flag} ${JSON.stringify(text)}: give ${what}`);
    return n;
  };
