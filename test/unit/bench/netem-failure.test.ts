import { describe, expect, it } from 'vitest';
import { netemFailure } from '../../../bench/emulation-bench.js';

describe('why netem is unavailable', () => {
  it.each([
    ['Error: Specified qdisc kind is unknown.', 'the kernel has no sch_netem (tc: Error: Specified qdisc kind is unknown.)'],
    ['', 'tc could not run'],
    ['spawn tc ENOENT', 'tc could not run (spawn tc ENOENT)'],
    ['RTNETLINK answers: Operation not permitted', 'tc: RTNETLINK answers: Operation not permitted'],
  ])('%j -> %s', (stderr, reason) => {
    expect(netemFailure(stderr)).toBe(reason);
  });
});
