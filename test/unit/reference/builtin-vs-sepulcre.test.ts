import { describe, expect, it } from 'vitest';
import { runBeaconingFleet, sharesAt } from '../../support/radio/beaconing-fleet.js';
import { REFERENCE_RADIO } from '../../support/radio/networks.js';
import { PDR_MAD_BOUND, pdrDeviation, SEPULCRE_REFERENCE } from '../../support/reference/sepulcre-80211p-points.js';

/** The published model's configuration (docs/radio-reference.md) as scenario keys. */
const REFERENCE_NETWORK = REFERENCE_RADIO;
/** 190 bytes of payload plus the paper's 30 bytes of headers: 220 bytes on the air, as the engine adds 64 to what it is handed. */
const REFERENCE_SIZE_BYTES = 190 + 30 - 64;

describe('the builtin 802.11p engine against the published analytical model (Sepulcre et al., TVT 2021)', () => {
  for (const curve of SEPULCRE_REFERENCE.filter((c) => c.label !== '120 veh/km, 10 Hz')) {
    it(`gives the model's PDR against distance within ${PDR_MAD_BOUND} on average, and the paper's simulated CBR within 25 %: ${curve.label}`, () => {
      const { outcomes, busyRatios } = runBeaconingFleet({
        network: REFERENCE_NETWORK,
        densityVehPerKm: curve.params.densityVehPerKm,
        roadM: 3000,
        beaconRateHz: curve.params.beaconRateHz,
        sizeBytes: REFERENCE_SIZE_BYTES,
        durationS: 2,
        seed: 7,
      });
      const rows = curve.points.map((p) => ({ d: p.distanceM, ours: sharesAt(outcomes, p.distanceM, 25) }));
      const deviation = pdrDeviation(curve, (d) => sharesAt(outcomes, d, 25).pdr);
      const cbr = busyRatios.reduce((a, b) => a + b, 0) / busyRatios.length;
      expect(rows.every((r) => r.ours.count > 100)).toBe(true);
      expect(deviation).toBeLessThanOrEqual(PDR_MAD_BOUND);
      // docs/radio-model.md: the engine senses each frame over the threshold for its whole air time, 344 us against the paper's 333
      expect(Math.abs(cbr - curve.simulation.cbrMean) / curve.simulation.cbrMean).toBeLessThanOrEqual(0.25);
      // the losses the model calls SEN happen here too, beyond the carrier-sense range
      expect(sharesAt(outcomes, 350, 25)['below-sensitivity']).toBeGreaterThan(0.5);
    });
  }
});
