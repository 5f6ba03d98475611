import { describe, expect, it } from 'vitest';
import { type FleetOutcome, sharesAt } from '../../support/radio/beaconing-fleet.js';
import { runSidelinkFleet, SIDELINK_NETWORK } from '../../support/radio/sidelink-fleet.js';
import { cv2xMode4Model } from '../../support/reference/cv2x-mode4-model.js';

/**
 * The published model's configuration (docs/sidelink.md) as scenario keys: lte-v2x's defaults, with
 * 2 m antennas, which cavsim's WINNER+ B1 (an environment 0.5 m high) makes the model's 1.5 m over
 * the ground (its environment height is 0).
 */
const REFERENCE_NETWORK = { ...SIDELINK_NETWORK, antennaHeight: 2 };
const DISTANCES = Array.from({ length: 21 }, (_, i) => i * 25);
const MAD_BOUND = 0.05;

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const shares = (outcomes: FleetOutcome[]) => DISTANCES.map((d) => sharesAt(outcomes, d, 12.5));

describe('the builtin lte-v2x engine against the published analytical model of C-V2X Mode 4 (Gonzalez-Martin et al., IEEE TVT 2019)', () => {
  const cases = [
    { densityVehPerKm: 100, roadM: 3000, durationS: 4 },
    { densityVehPerKm: 200, roadM: 2400, durationS: 3.5 },
  ];
  for (const c of cases) {
    it(`gives the model's PDR against distance within ${MAD_BOUND} mean absolute deviation over 0-500 m, with its loss types: ${c.densityVehPerKm} veh/km, 10 Hz, 190 B, 4 subchannels`, () => {
      const model = cv2xMode4Model({ beta: c.densityVehPerKm / 1000, lambda: 10, txPowerDbm: 20, subchannels: 4 }, DISTANCES);
      const { outcomes } = runSidelinkFleet({
        network: REFERENCE_NETWORK,
        ...c,
        rateHz: 10,
        sizeBytes: 190,
        warmupS: 1.5,
        seed: 3,
      });
      const ours = shares(outcomes);
      expect(ours.every((s) => s.count > 500)).toBe(true);
      const mad = mean(ours.map((s, k) => Math.abs(s.pdr - model.pdr[k])));
      expect(mad).toBeLessThanOrEqual(MAD_BOUND);
      // each loss type on its own: half duplex is lambda / 1000 everywhere, the sensing threshold takes over past 400 m
      const type = (name: string) => ours.map((s) => s[name] ?? 0);
      expect(Math.abs(mean(type('half-duplex')) - 0.01)).toBeLessThan(0.004);
      expect(mean(type('below-sensitivity').map((v, k) => Math.abs(v - model.belowSensitivity[k])))).toBeLessThan(0.03);
      expect(mean(type('collision').map((v, k) => Math.abs(v - model.collision[k])))).toBeLessThan(0.04);
      expect(type('below-sensitivity')[DISTANCES.indexOf(500)]).toBeGreaterThan(0.4);
      expect(Math.max(...type('collision'))).toBeGreaterThan(0.05);
    });
  }
});
