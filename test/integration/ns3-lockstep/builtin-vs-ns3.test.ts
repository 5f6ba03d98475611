import { beforeAll, describe, expect, it } from 'vitest';
import { lockstepBinary } from '../../../src/channel/ns3/builtin-programs.js';
import { lockstepArgv } from '../../../src/channel/ns3/lockstep/lockstep-argv.js';
import { LockstepChannel } from '../../../src/channel/ns3/lockstep/lockstep-channel.js';
import { Wifi80211pChannel } from '../../../src/channel/radio/wifi-80211p/wifi-80211p-channel.js';
import { createRandom, deriveSeed } from '../../../src/util/random.js';
import { binShares, type FleetOutcome, type FleetSpec, fleetMotion, runFleetOn } from '../../support/radio/fleet-on-channel.js';
import { REFERENCE_RADIO } from '../../support/radio/networks.js';
import { ns3LockstepProblem, requireReal } from '../../support/real-components.js';

/**
 * Issue 48's check of the builtin 802.11p engine against ns-3's: the same cars, the same frames at the
 * same times (and the same stack delays) through both engines; delivery against distance in 50 m bins
 * over 0-500 m, each loss reason's share, and the CBR. Parked cars keep one shadowing draw per pair for
 * the whole run, so a bin at low density holds few independent draws: parked cases run without
 * shadowing, moving ones with 3 dB.
 */
const REFERENCE = REFERENCE_RADIO;
const MAD_BOUND = 0.03;
const CBR_BOUND = 0.1;
const BIN_M = 50;

const CASES: { label: string; fleet: Omit<FleetSpec, 'beaconRateHz' | 'sizeBytes' | 'seed'>; shadowing: number }[] = [
  { label: '20 veh/km parked', fleet: { densityVehPerKm: 20, roadM: 6000, speed: 0, durationS: 2 }, shadowing: 0 },
  { label: '20 veh/km at 25 m/s', fleet: { densityVehPerKm: 20, roadM: 6000, speed: 25, durationS: 4 }, shadowing: 3 },
  { label: '60 veh/km parked', fleet: { densityVehPerKm: 60, roadM: 1500, speed: 0, durationS: 2 }, shadowing: 0 },
  { label: '60 veh/km at 25 m/s', fleet: { densityVehPerKm: 60, roadM: 1500, speed: 25, durationS: 2 }, shadowing: 3 },
  { label: '120 veh/km parked', fleet: { densityVehPerKm: 120, roadM: 1500, speed: 0, durationS: 2 }, shadowing: 0 },
  { label: '120 veh/km at 25 m/s', fleet: { densityVehPerKm: 120, roadM: 1500, speed: 25, durationS: 2 }, shadowing: 3 },
];

const stackDelay = (seed: number) => {
  const draw = createRandom(deriveSeed(seed, 'radio-stack'));
  return () => draw() * 0.0005;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function deviations(a: FleetOutcome[], b: FleetOutcome[]) {
  const reasons = [...new Set([...a, ...b].map((o) => o.lost ?? 'delivered'))];
  const sums: Record<string, number> = {};
  let bins = 0;
  for (let d = 0; d < 500; d += BIN_M) {
    const x = binShares(a, d, BIN_M);
    const y = binShares(b, d, BIN_M);
    if (!x.count || !y.count) continue;
    bins++;
    for (const r of reasons) sums[r] = (sums[r] ?? 0) + Math.abs((x.shares[r] ?? 0) - (y.shares[r] ?? 0));
  }
  return { bins, mad: Object.fromEntries(reasons.map((r) => [r, sums[r] / bins])) };
}

const real = requireReal('ns3-lockstep/builtin-vs-ns3.test.ts', ns3LockstepProblem());
beforeAll(() => real.assertPresent());

describe.skipIf(real.skip)('the builtin 802.11p engine against ns-3 (same cars, same frames)', () => {
  for (const c of CASES) {
    it(`${c.label}: delivery and each loss reason within ${MAD_BOUND} on average over 0-500 m, CBR within 10 %`, async () => {
      const network = { ...REFERENCE, shadowing: c.shadowing };
      const fleet: FleetSpec = { ...c.fleet, beaconRateHz: 10, sizeBytes: 190, seed: 5 };
      const motion = fleetMotion(fleet);
      const builtinClock = { now: 0 };
      const builtin = await runFleetOn(
        new Wifi80211pChannel<number>({
          network,
          names: motion.names,
          positions: () => motion.at(builtinClock.now),
          seed: 1,
          stackDelay: stackDelay(1),
        }),
        fleet,
        motion,
        builtinClock,
      );
      const binary = await lockstepBinary(true);
      const ns3Clock = { now: 0 };
      const ns3 = await runFleetOn(
        LockstepChannel.start<number>({
          binary,
          argv: lockstepArgv({ network, nodes: motion.names.length, run: 1 }),
          names: motion.names,
          motion: () => motion.at(ns3Clock.now),
          stackDelay: stackDelay(1),
        }),
        fleet,
        motion,
        ns3Clock,
      );
      const { bins, mad } = deviations(builtin.outcomes, ns3.outcomes);
      expect(bins).toBeGreaterThanOrEqual(8);
      for (const [reason, deviation] of Object.entries(mad))
        expect({ reason, deviation: deviation <= MAD_BOUND }).toEqual({ reason, deviation: true });
      const cbrBuiltin = mean(builtin.busyRatios);
      const cbrNs3 = mean(ns3.busyRatios);
      expect(Math.abs(cbrBuiltin - cbrNs3) / cbrNs3).toBeLessThanOrEqual(CBR_BOUND);
    }, 300_000);
  }
});
