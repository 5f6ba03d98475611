import { describe, expect, it } from 'vitest';
import { dccStateFor, dccTableFor, ReactiveDcc } from '../../../../../src/core/v2x/facilities/reactive-dcc.js';

describe('reactive DCC (TS 102 687 Annex A)', () => {
  const shortPackets = dccTableFor(384e-6);
  const longPackets = dccTableFor(800e-6);

  it('takes table A.2 for packets up to 500 us on the air and A.1 beyond', () => {
    expect(new ReactiveDcc(shortPackets).offTime).toBe(0.05);
    expect(new ReactiveDcc(longPackets).offTime).toBe(0.1);
  });

  it('puts each CBR in its band, with active 3 reaching to 65 % in table A.2 and 60 % in A.1', () => {
    expect([0, 0.29, 0.3, 0.39, 0.4, 0.49, 0.5, 0.62, 0.66].map((c) => dccStateFor(shortPackets, c))).toEqual([
      'relaxed',
      'relaxed',
      'active-1',
      'active-1',
      'active-2',
      'active-2',
      'active-3',
      'active-3',
      'restrictive',
    ]);
    expect(dccStateFor(longPackets, 0.62)).toBe('restrictive');
  });

  it('moves one state per CBR sample towards the band, up and down, with each state its T_off', () => {
    const dcc = new ReactiveDcc(longPackets);
    const offTimes = [0.9, 0.9, 0.9, 0.9, 0.9, 0.1, 0.45].map((cbr) => {
      dcc.observe(cbr);
      return dcc.offTime;
    });
    expect(offTimes).toEqual([0.2, 0.4, 0.5, 1, 1, 0.5, 0.4]);
    expect(dcc.state).toBe('active-2');
    expect(dcc.stateChanges).toBe(6);
  });
});
