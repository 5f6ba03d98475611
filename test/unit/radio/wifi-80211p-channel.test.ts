import { describe, expect, it } from 'vitest';
import type { ChannelFrame, Delivery } from '../../../src/channel/frames.js';
import { chunkSuccess, codingOf } from '../../../src/channel/radio/wifi-80211p/error-model.js';
import { frameAirTime, MAC_FRAME_OVERHEAD_BYTES } from '../../../src/channel/radio/wifi-80211p/ofdm-timing.js';
import { pathLossModel } from '../../../src/channel/radio/wifi-80211p/path-loss.js';
import { Wifi80211pChannel } from '../../../src/channel/radio/wifi-80211p/wifi-80211p-channel.js';
import type { WifiNetwork } from '../../../src/scenario/resolved.js';
import { wifiNetwork } from '../../support/radio/networks.js';
import { pathLossDb, SEPULCRE_DEFAULTS } from '../../support/reference/sepulcre-80211p.js';

const NETWORK = wifiNetwork();

function channelAt(xs: number[], network: WifiNetwork = NETWORK) {
  const positions = xs.map((x) => ({ x, y: 0 }));
  const names = xs.map((_, i) => `car${i}`);
  const channel = new Wifi80211pChannel<string>({ network, names, positions: () => positions, seed: 1 });
  const send = (from: number, at: number, id = `${from}@${at}`) => {
    const frame: ChannelFrame<string> = {
      payload: id,
      from: names[from],
      to: names.filter((_, j) => j !== from),
      broadcast: true,
      sizeBytes: 190,
    };
    channel.send(frame, at);
  };
  const until = (t: number) => {
    const out: Delivery<string>[] = [];
    for (let now = 0; now <= t + 1e-12; now += 0.001) out.push(...channel.deliverDue(now));
    return out;
  };
  return { channel, send, until };
}

describe('802.11p air time and error model (docs/radio-model.md)', () => {
  it('puts a 190-byte datagram on the air for 384 us at 6 Mb/s: 40 us of preamble and SIGNAL, 43 data symbols', () => {
    expect(frameAirTime(190 + MAC_FRAME_OVERHEAD_BYTES, 6e6)).toBeCloseTo(384e-6, 12);
    expect(frameAirTime(190 + MAC_FRAME_OVERHEAD_BYTES, 27e6)).toBeCloseTo(120e-6, 12);
  });

  it("decodes by ns-3's tables: QPSK 1/2 never fails above 7 dB, and fails more for longer stretches at a marginal SNR", () => {
    const qpsk = codingOf(6e6);
    expect(chunkSuccess(qpsk, 10 ** 0.8, 2000)).toBe(1);
    const short = chunkSuccess(qpsk, 10 ** 0.2, 256);
    const long = chunkSuccess(qpsk, 10 ** 0.2, 2048);
    expect(short).toBeGreaterThan(long);
    expect(long).toBeGreaterThan(0);
    expect(chunkSuccess(qpsk, 10 ** -0.5, 2048)).toBe(0);
  });

  it("gives the published model's WINNER+ B1 path loss with its free-space floor", () => {
    const winner = pathLossModel('winner-b1', { frequencyHz: SEPULCRE_DEFAULTS.carrierHz, antennaHeight: 1.5 });
    for (const d of [10, 50, 78, 100, 300, 800]) expect(winner(d, true)).toBeCloseTo(pathLossDb(d, SEPULCRE_DEFAULTS), 6);
  });
});

describe('the builtin 802.11p medium', () => {
  it('delivers a lone frame DIFS and its air time after it was sent (as ns-3), with the received power of the path-loss model', () => {
    const { send, until } = channelAt([0, 20]);
    send(0, 0.1);
    const [d] = until(0.2);
    expect(d.lost).toBeUndefined();
    expect(d.at - 0.1).toBeCloseTo(58e-6 + 384e-6 + 20 / 299792458, 9);
    expect(d.rxPowerDbm).toBeCloseTo(20 - (46.6777 + 30 * Math.log10(20)), 9);
  });

  it('loses a frame under the carrier-sense threshold as below-sensitivity, near or beyond the reach', () => {
    const { send, until } = channelAt([0, 150, 5000]);
    send(0, 0.1);
    const lost = until(0.2).filter((d) => d.lost);
    expect(lost.map((d) => [d.to, d.lost])).toEqual([
      ['car2', 'below-sensitivity'],
      ['car1', 'below-sensitivity'],
    ]);
    expect(lost[1].rxPowerDbm).toBeLessThan(-82);
  });

  it('carrier sense: a car that hears a frame on the air waits for it, and both frames arrive', () => {
    const { send, until } = channelAt([0, 10, 20]);
    send(0, 0.1, 'first');
    send(2, 0.1001, 'second');
    const out = until(0.2);
    expect(out.filter((d) => d.lost)).toEqual([]);
    const first = out.find((d) => d.payload === 'first' && d.to === 'car1')!;
    const second = out.find((d) => d.payload === 'second' && d.to === 'car1')!;
    expect(second.at - first.at).toBeGreaterThanOrEqual(384e-6 + 58e-6 - 1e-9);
  });

  it('hidden terminals: two senders that cannot sense each other overlap at the car between them', () => {
    const { send, until } = channelAt([0, 15, 30], { ...NETWORK, txPower: 5 });
    send(0, 0.1, 'left');
    send(2, 0.10005, 'right');
    const atMiddle = until(0.2).filter((d) => d.to === 'car1');
    expect(atMiddle.map((d) => d.lost)).toEqual(['receiver-busy', 'collision']);
  });

  it('half duplex: a car sending hears nothing, and the frames two cars start in the same slot are lost at each other', () => {
    const { send, until } = channelAt([0, 10]);
    send(0, 0.1, 'a');
    send(1, 0.1, 'b');
    const out = until(0.2);
    expect(out.map((d) => d.lost)).toEqual(['receiver-busy', 'receiver-busy']);
  });

  it('measures each car busy for the air time of the frames it senses and sends, per 100 ms window', () => {
    const { channel, send } = channelAt([0, 10]);
    for (let k = 0; k < 10; k++) send(0, 0.005 + k * 0.01);
    for (let now = 0; now <= 0.25; now += 0.01) channel.deliverDue(now);
    const windows = channel.takeChannelBusy(0.25);
    expect(windows.map((w) => [w.car, w.start, w.end])).toEqual([
      ['car0', 0, 0.1],
      ['car1', 0, 0.1],
      ['car0', 0.1, 0.2],
      ['car1', 0.1, 0.2],
    ]);
    expect(windows[0].busyRatio).toBeCloseTo((10 * 384e-6) / 0.1, 6);
    expect(windows[1].busyRatio).toBeCloseTo((10 * 384e-6) / 0.1, 4);
    expect(windows[2].busyRatio).toBe(0);
  });

  it('gives the same outcomes for the same seed', () => {
    const run = () => {
      const { send, until } = channelAt([0, 15, 30, 45, 60], { ...NETWORK, shadowing: 6 });
      for (let k = 0; k < 50; k++) send(k % 5, 0.01 + k * 0.0013);
      return until(0.2).map((d) => `${d.payload}>${d.to}:${d.lost ?? 'ok'}@${d.at}`);
    };
    expect(run()).toEqual(run());
  });
});
