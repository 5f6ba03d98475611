import { describe, expect, it } from 'vitest';
import { channelLoad, channelLoadWarnings, offeredMessages, overdueAfter } from '../../../src/run/channel-load.js';
import { withLoadWarnings } from '../../../src/run/run-session.js';
import type { ResolvedNetwork, ResolvedScenario } from '../../../src/scenario/resolved.js';

/** `cars` cars 10 m apart in a row, each beaconing at `rate` with `size` bytes, on `network`. */
function scenario(network: ResolvedNetwork, cars = 6, rate = 10, size = 300): ResolvedScenario {
  return {
    name: 'load',
    network,
    vehicles: Array.from({ length: cars }, (_, i) => ({
      name: `car${i}`,
      index: i,
      start: { x: i * 10, y: 0, yaw: 0, speed: 10 },
      apps: [{ type: 'beacon', rate, size, to: '*' }],
    })),
  } as unknown as ResolvedScenario;
}

const csma = (delay: number): ResolvedNetwork => ({ channel: 'csma', delay, dataRate: 6e6, loss: 0 });
const wifi: ResolvedNetwork = {
  channel: 'wifi-80211p',
  txPower: 20,
  propagation: 'log-distance',
  obstacles: 'none',
  antennaHeight: 1.5,
  noiseFigure: 7,
  rate: 6e6,
  shadowing: 0,
};

describe('offered load against the channel capacity (validate, plan and a run start say it)', () => {
  it('six cars beaconing at 10 Hz on a csma bus at 100 ms: 60 frames/s where it carries about 10', () => {
    const load = channelLoad(scenario(csma(0.1)), 'sim')!;
    // each frame holds the bus 100 ms + (300 + 46) bytes at 6 Mbit/s
    expect(load.utilisation).toBeCloseTo(60 * (0.1 + (346 * 8) / 6e6), 9);
    const [warning] = channelLoadWarnings(scenario(csma(0.1)), 'sim');
    expect(warning).toContain('60 frames/s');
    expect(warning).toContain('9.95 frames/s');
    expect(warning).toContain('603 % of capacity');
    // the fix names a delay that fits: 60 frames of (delay + 0.46 ms) under a second
    expect(warning).toMatch(/lower network.delay under 16.2ms/);
    expect(warning).toContain('network.channel: latency');
  });

  it('the same bus at 10 ms carries the beacons: no warning', () => {
    expect(channelLoad(scenario(csma(0.01)), 'sim')!.utilisation).toBeLessThan(1);
    expect(channelLoadWarnings(scenario(csma(0.01)), 'sim')).toEqual([]);
  });

  it('the emulated runtime sends one datagram per receiver: five times the frames of a broadcast', () => {
    const sim = channelLoad(scenario(csma(0.01)), 'sim')!;
    const docker = channelLoad(scenario(csma(0.01)), 'docker')!;
    expect(docker.utilisation / sim.utilisation).toBeCloseTo(5, 9);
    // two cars at 20 Hz on csma at 100 ms (ENVIRONMENT.md: 24.6 % delivered): 40 frames/s for 10
    expect(channelLoadWarnings(scenario(csma(0.1), 2, 20), 'docker')[0]).toContain('40 frames/s');
  });

  it('latency: each sender against its data rate', () => {
    const slow: ResolvedNetwork = { channel: 'latency', delay: 0.01, jitter: 0, dataRate: 20e3, loss: 0 };
    const load = channelLoad(scenario(slow), 'sim')!;
    expect(load.utilisation).toBeCloseTo((10 * 346 * 8) / 20e3, 9);
    expect(channelLoadWarnings(scenario(slow), 'sim')[0]).toMatch(/raise network.dataRate above 0.0277Mbps/);
  });

  it('802.11p: air time of the senders within carrier-sense range, against 60 % of the air', () => {
    const light = channelLoad(scenario(wifi), 'sim')!;
    expect(light.channel).toBe('wifi-80211p');
    expect(light.utilisation).toBeGreaterThan(0);
    expect(light.utilisation).toBeLessThan(1);
    // log-distance from 20 dBm to ns-3's busy threshold (-85 dBm): 88 m, so 17 cars 10 m apart; at 100 Hz they fill the air
    const [warning] = channelLoadWarnings(scenario(wifi, 100, 100, 300), 'sim');
    expect(warning).toMatch(/car\d+ hears 17 senders within 88 m \(carrier sense\)/);
    expect(channelLoadWarnings(scenario(wifi, 100, 10, 300), 'sim')).toEqual([]);
  });

  it('CAMs by the position rule: 10 m/s over 4 m is 2.5 Hz, within T_GenCamMin and T_GenCamMax', () => {
    const s = scenario(csma(0.01), 2);
    for (const v of s.vehicles) (v as { apps: unknown[] }).apps = [{ type: 'cam', minInterval: 0.1, maxInterval: 1 }];
    expect(offeredMessages(s).map((m) => m.rate)).toEqual([2.5, 2.5]);
  });

  it('a frame is overdue after the channel delay (and jitter) plus 100 ms', () => {
    expect(overdueAfter(csma(0.1))).toBeCloseTo(0.2, 12);
    expect(overdueAfter({ channel: 'latency', delay: 0.05, jitter: 0.02, dataRate: 1e6, loss: 0 })).toBeCloseTo(0.17, 12);
    expect(overdueAfter(wifi)).toBeCloseTo(0.1, 12);
  });

  it("a run's start adds the warning to the scenario's warnings once, per runtime", () => {
    const s = withLoadWarnings(scenario(csma(0.1)), 'docker');
    expect(s.warnings).toHaveLength(1);
    expect(withLoadWarnings(s, 'docker').warnings).toHaveLength(1);
    expect(withLoadWarnings(scenario(csma(0.01)), 'sim').warnings).toBeUndefined();
  });
});
