import { describe, expect, it } from 'vitest';
import {
  codeRate,
  modulationOf,
  ResourcePool,
  sinrShiftDb,
  transportBlockBits,
} from '../../../src/channel/radio/sidelink/resource-pool.js';
import { blockErrorRate, referenceBler } from '../../../src/channel/radio/sidelink/sidelink-phy.js';
import { counterRange, SpsReservation } from '../../../src/channel/radio/sidelink/sps-reservation.js';

describe('the sidelink resource pool (TS 36.213 Tables 7.1.7.2.1-1, 8.6.1-1)', () => {
  it('maps MCS to modulation and TBS index: QPSK to MCS 10, 16QAM from 11 with the index one lower', () => {
    expect(modulationOf(9)).toEqual({ bitsPerSymbol: 2, tbsIndex: 9 });
    expect(modulationOf(10)).toEqual({ bitsPerSymbol: 2, tbsIndex: 10 });
    expect(modulationOf(11)).toEqual({ bitsPerSymbol: 4, tbsIndex: 10 });
    expect(transportBlockBits(9, 10)).toBe(1544);
    expect(transportBlockBits(0, 10)).toBe(256);
    // the published configuration: 190 bytes at QPSK, code rate 0.73
    expect(codeRate(9, 10)).toBeCloseTo(0.726, 3);
  });

  it('splits 50 blocks into subchannels and gives a message the fewest that carry it', () => {
    const pool = new ResourcePool(4, 9);
    expect(pool.subchannelBlocks).toBe(12);
    expect(pool.dataBlocks(1)).toBe(10);
    expect(pool.capacityBytes(1)).toBe(193);
    expect(pool.subchannelsFor(190)).toBe(1);
    expect(pool.subchannelsFor(300)).toBe(2);
    expect(pool.subchannelsFor(800)).toBe(4);
    expect(pool.subchannelsFor(1000)).toBeUndefined();
    expect(new ResourcePool(2, 9).subchannelBlocks).toBe(25);
  });
});

describe('the sidelink PHY abstraction (R1-160284 via the published model)', () => {
  it('follows the reference BLER curve and shifts it by the Shannon SINR of other spectral efficiencies', () => {
    expect(referenceBler(-1)).toBe(1);
    expect(referenceBler(8)).toBeCloseTo(0.13, 6);
    expect(referenceBler(9)).toBeCloseTo(0.0875, 6);
    expect(referenceBler(25)).toBe(1e-4);
    expect(sinrShiftDb(9, 10)).toBeCloseTo(0, 9);
    expect(sinrShiftDb(4, 10)).toBeLessThan(-2);
    expect(sinrShiftDb(16, 10)).toBeGreaterThan(4);
    expect(blockErrorRate(8 + sinrShiftDb(16, 10), sinrShiftDb(16, 10))).toBeCloseTo(0.13, 6);
  });
});

describe('a semi-persistent reservation (TS 36.321 5.14.1.1)', () => {
  it('draws its counter from 5-15 at 100 ms, 10-30 at 50 ms, 25-75 at 20 ms', () => {
    expect(counterRange(100)).toEqual([5, 15]);
    expect(counterRange(50)).toEqual([10, 30]);
    expect(counterRange(20)).toEqual([25, 75]);
  });

  it('names what makes a car reselect: no reservation, the counter out, a second unused, too big a packet, too late an occurrence', () => {
    const sps = new SpsReservation<{ bytes: number }>(100);
    expect(sps.trigger(10, 100)).toBe('none');
    sps.reserve(50, 0, 1, 193, 7);
    sps.queue.push({ bytes: 190 });
    sps.queuedBytes = 190;
    expect(sps.trigger(11, 100)).toBeUndefined();
    expect(sps.occurrenceFrom(51)).toBe(150);
    expect(sps.trigger(51, 50)).toBe('latency');
    sps.queuedBytes = 300;
    expect(sps.trigger(11, 100)).toBe('size');
    sps.queuedBytes = 190;
    expect(sps.trigger(1200, 100)).toBe('unused');
    sps.counter = 0;
    expect(sps.trigger(11, 100)).toBe('counter');
    expect(sps.takeBlock()).toEqual([{ bytes: 190 }]);
    expect(sps.queuedBytes).toBe(0);
  });
});
