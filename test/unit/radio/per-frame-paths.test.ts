import { describe, expect, it } from 'vitest';
import { SpatialIndex } from '../../../src/channel/radio/medium/spatial-index.js';
import { codingOf, SIGNAL_FIELD_CODING } from '../../../src/channel/radio/wifi-80211p/error-model.js';
import { PER_TABLES_32_BYTES, PER_TABLES_1458_BYTES } from '../../../src/channel/radio/wifi-80211p/error-rate-tables.js';
import { LinkBudget, lineOfSightOf } from '../../../src/channel/radio/wifi-80211p/link-budget.js';
import { OccupancyGrid } from '../../../src/core/map/occupancy-grid.js';
import { createRandom } from '../../../src/util/random.js';
import { REFERENCE_RADIO } from '../../support/radio/networks.js';

/** Cars scattered over 3 km x 60 m, with a wall block in the middle so that some paths are blocked. */
function scene(n: number) {
  const rnd = createRandom(11);
  const x = Float64Array.from({ length: n }, () => rnd() * 3000);
  const y = Float64Array.from({ length: n }, () => rnd() * 60);
  const odometer = new Float64Array(n);
  const width = 600;
  const height = 12;
  const occupied = new Uint8Array(width * height);
  for (let r = 4; r < 8; r++) occupied.fill(1, r * width + 280, r * width + 320);
  const grid = new OccupancyGrid({ width, height, resolution: 5, origin: { x: 0, y: 0, yaw: 0 }, occupied });
  return { x, y, odometer, grid };
}

describe('the per-frame paths of the builtin 802.11p engine give what the per-receiver ones did', () => {
  it('the spatial index finds exactly the cars within the reach', () => {
    const { x, y } = scene(400);
    const index = new SpatialIndex(400, 700);
    index.rebuild(x, y);
    for (const car of [0, 17, 399]) {
      const count = index.within(car, x, y);
      const found = [...index.found.subarray(0, count)].sort((a, b) => a - b);
      const expected = [...Array(400).keys()].filter((o) => o !== car && Math.hypot(x[o] - x[car], y[o] - y[car]) <= 700);
      expect(found).toEqual(expected);
      for (let k = 0; k < count; k++) {
        const o = index.found[k];
        expect(index.distances[k]).toBeCloseTo(Math.hypot(x[o] - x[car], y[o] - y[car]), 9);
      }
    }
  });

  it("a frame's powers in one call equal rxPowerDbm one receiver at a time, shadowing draws included", () => {
    const n = 300;
    const { x, y, odometer, grid } = scene(n);
    const network = { ...REFERENCE_RADIO, obstacles: 'map' as const };
    const batch = new LinkBudget(network, grid, n, 5);
    const single = new LinkBudget(network, grid, n, 5);
    const index = new SpatialIndex(n, batch.reach);
    const dbm = new Float64Array(n);
    const lineOfSight = new Uint8Array(n);
    let blocked = 0;
    for (let step = 0; step < 3; step++) {
      for (let i = 0; i < n; i++) odometer[i] += 2.5;
      index.rebuild(x, y);
      for (const a of [3, 150, 299]) {
        const count = index.within(a, x, y);
        batch.rxPowersDbm(a, index.found, index.distances, count, { x, y, odometer }, dbm, lineOfSight);
        for (let k = 0; k < count; k++) {
          const b = index.found[k];
          expect(dbm[k]).toBe(single.rxPowerDbm(a, b, x[a], y[a], x[b], y[b], index.distances[k], odometer));
          expect(lineOfSightOf(lineOfSight[k])).toBe(single.lastLineOfSight);
          if (single.lastLineOfSight === false) blocked++;
        }
      }
    }
    expect(blocked).toBeGreaterThan(0);
  });

  it('above a coding’s surelyDecodesSinr, the SNR rounded to 0.01 dB is past the last entry of both its tables', () => {
    for (const coding of [SIGNAL_FIELD_CODING, ...[3e6, 4.5e6, 6e6, 9e6, 12e6, 18e6, 24e6, 27e6].map(codingOf)]) {
      const last = Math.max(
        ...[PER_TABLES_32_BYTES, PER_TABLES_1458_BYTES].map((tables) => tables[coding.table][tables[coding.table].length - 1][0]),
      );
      for (const sinr of [coding.surelyDecodesSinr, coding.surelyDecodesSinr * (1 + 1e-15), coding.surelyDecodesSinr * 1.001]) {
        const snrDb = Math.round((10 * Math.log10(sinr) - coding.offsetDb) * 100) / 100;
        expect(snrDb).toBeGreaterThan(last);
      }
    }
  });
});
