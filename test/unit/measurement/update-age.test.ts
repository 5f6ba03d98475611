import { describe, expect, it } from 'vitest';
import { ageOfInformation, interArrivalGaps } from '../../../src/measurement/update-age.js';

describe('age of information', () => {
  it('on an ideal channel is the sawtooth the period and delay predict, by hand', () => {
    // ten beacons every 100 ms from 50 ms, each arriving 10 ms later; sampled every 10 ms to 1 s
    const updates = Array.from({ length: 10 }, (_, k) => ({ sentAt: 0.05 + 0.1 * k, receivedAt: 0.06 + 0.1 * k }));
    const aoi = ageOfInformation(updates, 0.01, 1)!;
    // from 60 ms on, nine full teeth of 10..100 ms, then 10..50 ms: (9 * 550 + 150) / 95 samples
    expect(aoi.mean_ms).toBeCloseTo((9 * 550 + 150) / 95, 3);
    expect(aoi.max_ms).toBeCloseTo(100, 6);
    expect(interArrivalGaps(updates)).toEqual({ mean_ms: 100, p99_ms: 100, max_ms: 100 });
  });

  it('a late, older update does not make the information younger; a lost one lets it age', () => {
    const updates = [
      { sentAt: 0, receivedAt: 0.01 },
      { sentAt: 0.2, receivedAt: 0.21 },
      { sentAt: 0.1, receivedAt: 0.3 }, // overtaken
    ];
    const aoi = ageOfInformation(updates, 0.01, 0.4)!;
    // 10..200 ms, then from 210 ms ages 10..200 ms again (the late one changes nothing)
    expect(aoi.max_ms).toBeCloseTo(200, 6);
    expect(ageOfInformation([], 0.01, 1)).toBeNull();
    expect(interArrivalGaps([{ sentAt: 0, receivedAt: 1 }])).toBeNull();
  });
});
