import { describe, expect, it } from 'vitest';
import type { ChannelFrame, Delivery } from '../../../src/channel/frames.js';
import { LteV2xChannel } from '../../../src/channel/radio/sidelink/lte-v2x-channel.js';
import { SensingMemory } from '../../../src/channel/radio/sidelink/sensing.js';
import { createRandom } from '../../../src/util/random.js';
import { SIDELINK_NETWORK } from '../../support/radio/sidelink-fleet.js';

const NO_SHADOWING = { ...SIDELINK_NETWORK, shadowing: 0 };

function channelOf(xs: number[], network = NO_SHADOWING) {
  const positions = xs.map((x) => ({ x, y: 0 }));
  const names = xs.map((_, i) => `car${i}`);
  const channel = new LteV2xChannel<string>({ network, names, positions: () => positions, seed: 5 });
  const send = (from: number, at: number, sizeBytes = 190) => {
    const frame: ChannelFrame<string> = {
      payload: `${from}@${at}`,
      from: names[from],
      to: names.filter((_, j) => j !== from),
      broadcast: true,
      sizeBytes,
    };
    channel.send(frame, at);
  };
  return { channel, send, names };
}

describe('the builtin lte-v2x channel', () => {
  it('delivers at the end of the subframe its reservation picked, within the 100 ms selection window', () => {
    const { channel, send } = channelOf([0, 50]);
    send(0, 0.0103);
    const out = channel.deliverDue(0.2);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ payload: '0@0.0103', to: 'car1' });
    expect(out[0].lost).toBeUndefined();
    expect(out[0].at).toBeGreaterThan(0.011);
    expect(out[0].at).toBeLessThanOrEqual(0.111);
    // whole subframes: delivered at the end of one
    expect(Math.abs(out[0].at * 1000 - Math.round(out[0].at * 1000))).toBeLessThan(1e-6);
    expect(channel.selections).toBe(1);
  });

  it('keeps the reservation every 100 ms while its counter lasts (5-15), then reselects', () => {
    const { channel, send } = channelOf([0, 50]);
    const times: number[] = [];
    for (let k = 0; k < 40; k++) send(0, 0.0005 + k * 0.1);
    for (const d of channel.deliverDue(5)) times.push(d.at);
    expect(times).toHaveLength(40);
    const gaps = times.slice(1).map((t, i) => Math.round((t - times[i]) * 1000));
    const periodic = gaps.filter((g) => g === 100).length;
    expect(periodic).toBeGreaterThanOrEqual(30);
    // 40 packets with counters of 5 to 15: between 3 and 8 selections
    expect(channel.selections).toBeGreaterThanOrEqual(3);
    expect(channel.selections).toBeLessThanOrEqual(8);
  });

  it('a car transmitting in a subframe hears nobody in it (half-duplex), and a packet too big for its reservation makes it reselect', () => {
    const { channel, send } = channelOf([0, 50]);
    // both pick in the same window; force them onto one subframe by sending until they share one
    let halfDuplex = 0;
    for (let k = 0; k < 200; k++) {
      send(0, 0.0002 + k * 0.1);
      send(1, 0.0004 + k * 0.1);
    }
    const out: Delivery<string>[] = channel.deliverDue(25);
    halfDuplex = out.filter((d) => d.lost === 'half-duplex').length;
    const delivered = out.filter((d) => !d.lost).length;
    expect(halfDuplex + delivered).toBe(400);
    // two cars that hear each other exclude each other's subframes: half duplex only when both reselect together
    expect(halfDuplex).toBeLessThan(40);
    const before = channel.selections;
    send(0, 25.0002, 400);
    channel.deliverDue(26);
    expect(channel.selections).toBe(before + 1);
  });

  it('counts below-sensitivity past the sensing threshold, and reports the 3GPP CBR of every car per 100 ms', () => {
    const { channel, send } = channelOf([0, 50, 2000]);
    for (let k = 0; k < 10; k++) send(0, 0.0005 + k * 0.1);
    const out = channel.deliverDue(1.25);
    expect(out.filter((d) => d.to === 'car2').every((d) => d.lost === 'below-sensitivity')).toBe(true);
    expect(out.filter((d) => d.to === 'car1').every((d) => !d.lost)).toBe(true);
    const busy = channel.takeChannelBusy(1.25);
    expect(busy).toHaveLength(3 * 12);
    const near = busy.filter((b) => b.car === 'car1' && b.start >= 0.1 && b.end <= 1);
    // one transmission of one subchannel per 100 ms: 1 of 400 subchannel-subframes over the threshold
    expect(near.every((b) => Math.abs(b.busyRatio - 1 / 400) < 1e-9)).toBe(true);
    expect(busy.filter((b) => b.car === 'car2').every((b) => b.busyRatio === 0)).toBe(true);
  });

  it('loses to collision the packets of cars that share resources, more on a smaller pool', () => {
    const shares = [1, 4].map((subchannels) => {
      const { channel, send } = channelOf(
        Array.from({ length: 120 }, (_, i) => i * 10),
        { ...NO_SHADOWING, subchannels },
      );
      for (let k = 0; k < 20; k++) for (let car = 0; car < 120; car++) send(car, 0.0001 + (car % 97) * 0.001 + k * 0.1);
      const out = channel.deliverDue(3);
      const near = out.filter((d) => d.rxPowerDbm !== undefined && d.rxPowerDbm > -80);
      return near.filter((d) => d.lost === 'collision').length / near.length;
    });
    // 120 cars on 100 resources per 100 ms cannot all have their own; on 400 most do
    expect(shares[0]).toBeGreaterThan(0.05);
    expect(shares[1]).toBeLessThan(shares[0] / 2);
  });
});

describe('sensing-based selection (TS 36.213 14.1.1.6)', () => {
  it("avoids a candidate another car reserves above the threshold, and its own transmission's subframe", () => {
    const memory = new SensingMemory(2, 1);
    const draw = createRandom(9);
    // car 1 reserves subframe 50 (mod 100) on the only subchannel, heard strongly
    memory.recordSci(0, 1, 950, 0, 1, 100, -80);
    memory.recordOwnTransmission(0, 920);
    for (let trial = 0; trial < 200; trial++) {
      const chosen = memory.select(0, 1000, 1, 100, 100, -111, draw);
      expect(chosen.subframe).toBeGreaterThan(1000);
      expect(chosen.subframe).toBeLessThanOrEqual(1100);
      expect(chosen.subframe).not.toBe(1050);
      expect(chosen.subframe).not.toBe(1020);
    }
  });

  it('ranks by S-RSSI: with everything else excluded or loud, picks among the quietest 20 %', () => {
    const memory = new SensingMemory(1, 1);
    const energy = new Float64Array(1);
    // every subframe loud, except 20 quiet ones at 10..29 (mod 100), over the last 1000 subframes
    for (let t = 0; t < 1000; t++) {
      energy[0] = t % 100 >= 10 && t % 100 < 30 ? 1e-12 : 1e-9;
      memory.recordRssi(0, t, energy, 0);
    }
    const draw = createRandom(3);
    for (let trial = 0; trial < 100; trial++) {
      const { subframe } = memory.select(0, 1000, 1, 100, 100, -111, draw);
      expect(subframe % 100).toBeGreaterThanOrEqual(10);
      expect(subframe % 100).toBeLessThan(30);
    }
  });
});
