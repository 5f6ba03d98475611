import { UserInputError } from '../errors.js';

/**
 * The most runs one sweep may plan. grid.json records every point (about 300 bytes each) and each
 * swept value is checked against the scenario before the first run (about 10 ms each), so a larger
 * plan would take gigabytes or a silent half hour before anything happens.
 */
export const MAX_SWEEP_RUNS = 100_000;

/** The most runs per grid point (`--repeat`). */
export const MAX_REPEAT = 10_000;

const count = (n: number) => (Number.isFinite(n) ? n.toLocaleString('en-US') : 'more than 10^308');

/**
 * Refuses a sweep that would plan more than MAX_SWEEP_RUNS runs, before anything is allocated.
 * `factors` say where the count comes from, e.g. ['10 values of network.delay', '--repeat 3'].
 */
export function checkRunCount(runs: number, factors: string[]): void {
  if (runs <= MAX_SWEEP_RUNS) return;
  throw new UserInputError(
    `the sweep would plan ${count(runs)} runs (${factors.join(' × ')}); a sweep plans at most ${count(MAX_SWEEP_RUNS)}`,
    [],
    'use fewer values (a larger step, e.g. 10..300ms:10ms), fewer swept --set fields, or a smaller --repeat; split a larger study into several sweeps',
  );
}

export function checkRepeat(repeat: number): void {
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > MAX_REPEAT) {
    throw new UserInputError(`--repeat ${repeat}: give a whole number from 1 to ${count(MAX_REPEAT)}`);
  }
}
