import { describe, expect, it } from 'vitest';
import { NrResourcePool, nrTransportBlockBits, slotSeconds } from '../../../src/channel/radio/sidelink/nr-resource-pool.js';
import { codeRate } from '../../../src/channel/radio/sidelink/resource-pool.js';
import { REFERENCE_EFFICIENCY } from '../../../src/channel/radio/sidelink/sidelink-phy.js';
import { counterRange } from '../../../src/channel/radio/sidelink/sps-reservation.js';
import { isNrV2xRri } from '../../../src/scenario/resolve-sidelink.js';

describe('the NR-V2X resource grid (TS 38.211 numerology, TS 38.101-1 blocks, TS 38.214 transport blocks)', () => {
  it('has slots of 1 ms / 2^mu and splits the 20 MHz channel into 10-block subchannels', () => {
    expect([0, 1, 2].map(slotSeconds)).toEqual([0.001, 0.0005, 0.00025]);
    expect([0, 1, 2].map((mu) => new NrResourcePool(mu, 10, 14).subchannels)).toEqual([10, 5, 2]);
    expect(new NrResourcePool(0, 50, 14).subchannels).toBe(2);
  });

  it('computes transport block sizes by TS 38.214 5.1.3.2 and fits a 190-byte CAM in one subchannel at MCS 14', () => {
    // 720 data elements at 16QAM, rate 553/1024: 1555 bits, quantised to 1552, the table's next size 1608
    expect(nrTransportBlockBits(14, 720)).toBe(1608);
    // above 3824 bits the formula: 4 subchannels of 10 blocks at MCS 14
    expect(nrTransportBlockBits(14, 4 * 1080 - 360)).toBe(8456);
    const pool = new NrResourcePool(1, 10, 14);
    expect(pool.capacityBytes(1)).toBe(201);
    expect(pool.subchannelsFor(190)).toBe(1);
    expect(pool.subchannelsFor(400)).toBe(2);
    expect(pool.subchannelsFor(5000)).toBeUndefined();
    // a 16QAM block needs more SINR than the LTE reference's QPSK; a QPSK one at a lower rate less
    expect(pool.shiftDb(1)).toBeGreaterThan(2);
    expect(new NrResourcePool(1, 10, 4).shiftDb(1)).toBeLessThan(0);
    expect(REFERENCE_EFFICIENCY).toBeCloseTo(2 * codeRate(9, 10), 12);
  });

  it('scales the sensitivity with the subchannel bandwidth, and takes the reservation intervals and counters of TS 38.331 and TS 38.321', () => {
    // 10 blocks at 30 kHz are 3.6 MHz against LTE's 2.16 MHz subchannel: 2.2 dB more noise
    expect(new NrResourcePool(1, 10, 14).sensitivityDbm).toBeCloseTo(-90.5 + 10 * Math.log10(3.6 / 2.16), 9);
    expect([0.001, 0.02, 0.05, 0.099, 0.1, 0.3, 1].every(isNrV2xRri)).toBe(true);
    expect([0.0005, 0.15, 1.1, 0.0235].some(isNrV2xRri)).toBe(false);
    expect(counterRange(100)).toEqual([5, 15]);
    expect(counterRange(50)).toEqual([10, 30]);
    expect(counterRange(20)).toEqual([25, 75]);
    expect(counterRange(10)).toEqual([25, 75]);
    expect(counterRange(40)).toEqual([13, 37]);
  });
});
