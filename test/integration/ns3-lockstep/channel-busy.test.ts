import { beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_BUSY_WINDOW_S, type ChannelBusySample } from '../../../src/channel/frames.js';
import { ns3LockstepProblem, requireReal } from '../../support/real-components.js';
import { broadcast, compileWifiProgram, driveWifi, parkedAt, wifi } from './wifi-harness.js';

const real = requireReal('ns3-lockstep/channel-busy.test.ts', ns3LockstepProblem());
let binary = '';

beforeAll(async () => {
  real.assertPresent();
  binary = await compileWifiProgram();
}, 300_000);

/** 802.11p OFDM at 10 MHz: preamble and SIGNAL 40 us, then 8 us symbols of SERVICE, the MPDU (payload + 28 UDP/IP + 8 LLC + 24 MAC + 4 FCS) and tail. */
const airtime = (bytes: number, rate = 6e6) => 40e-6 + Math.ceil((16 + 6 + 8 * (bytes + 28 + 8 + 24 + 4)) / (rate * 8e-6)) * 8e-6;
const byCar = (samples: ChannelBusySample[], car: string) => samples.filter((s) => s.car === car);

describe.skipIf(real.skip)('ns-3 in lock-step: the channel busy ratio of each car', () => {
  const names = ['a', 'b', 'c', 'd'];
  const line = parkedAt(names.map((_, i) => ({ x: 5 * i, y: 0 })));
  // each car 10 Hz, 1000 B, 10 ms after the one before: four frames a window, none overlapping
  const sends = Array.from({ length: 20 }, (_, k) =>
    names.map((from, i) => ({ at: k * 0.1 + 0.01 * (i + 1), frame: broadcast(4 * k + i, from, names, 1000) })),
  ).flat();

  it("is each car's share of every 100 ms window its radio sent or received, the four frames' airtime; a window the run did not finish is not reported", async () => {
    const { busy, outcomes } = await driveWifi(binary, wifi(), names, line, sends, 2.05);
    expect(outcomes.every((o) => !o.lost)).toBe(true);
    const share = (4 * airtime(1000)) / CHANNEL_BUSY_WINDOW_S;
    for (const car of names) {
      const windows = byCar(busy, car);
      expect(windows.map((w) => w.end)).toEqual(Array.from({ length: 20 }, (_, k) => +((k + 1) * 0.1).toFixed(9)));
      for (const w of windows) {
        expect(w.end - w.start).toBeCloseTo(CHANNEL_BUSY_WINDOW_S, 9);
        expect(w.busyRatio).toBeGreaterThan(share * 0.8);
        expect(w.busyRatio).toBeLessThan(share * 1.2);
      }
    }
    // in window order, each window's cars in node order
    expect(busy.slice(0, 8).map((s) => `${s.end}:${s.car}`)).toEqual([0.1, 0.2].flatMap((end) => names.map((car) => `${end}:${car}`)));
  });

  it('windows with nothing on the air are reported too, as 0, also when nothing is in flight for seconds; a run that does not wait gets the same', async () => {
    const early = sends.filter((s) => s.at < 0.5);
    const waiting = await driveWifi(binary, wifi(), names, line, early, 3);
    const logged = await driveWifi(binary, wifi(), names, line, early, 3, { outcomesOnlyLogged: true });
    expect(waiting.busy).toHaveLength(4 * 30);
    expect(logged.busy).toEqual(waiting.busy);
    expect(waiting.busy.filter((s) => s.end > 0.55).every((s) => s.busyRatio === 0)).toBe(true);
    expect(waiting.busy.filter((s) => s.end < 0.55).every((s) => s.busyRatio > 0.04)).toBe(true);
  });
});
