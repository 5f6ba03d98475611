import { describe, expect, it } from 'vitest';
import type { ChannelFrame } from '../../../src/channel/frames.js';
import { NrV2xChannel } from '../../../src/channel/radio/sidelink/lte-v2x-channel.js';
import type { NrV2xNetwork } from '../../../src/scenario/resolved.js';
import type { FleetOutcome } from '../../support/radio/beaconing-fleet.js';
import { NR_SIDELINK_NETWORK, runSidelinkFleet } from '../../support/radio/sidelink-fleet.js';

const QUIET: NrV2xNetwork = { ...NR_SIDELINK_NETWORK, shadowing: 0 };

function channelOf(xs: number[], network: NrV2xNetwork = QUIET) {
  const positions = xs.map((x) => ({ x, y: 0 }));
  const names = xs.map((_, i) => `car${i}`);
  const channel = new NrV2xChannel<string>({ network, names, positions: () => positions, seed: 5 });
  const send = (from: number, at: number, sizeBytes = 190) => {
    const to = names.filter((_, j) => j !== from);
    const frame: ChannelFrame<string> = { payload: `${from}@${at}`, from: names[from], to, broadcast: true, sizeBytes };
    channel.send(frame, at);
  };
  return { channel, send };
}

const pdr = (outcomes: FleetOutcome[], from: number, to: number) => {
  const near = outcomes.filter((o) => o.distance >= from && o.distance < to);
  return near.filter((o) => !o.lost).length / near.length;
};

/** TR 37.885's aperiodic traffic: 50 ms plus an exponential of mean 50 ms between packets, of 200 to 1000 bytes in steps of 200. */
const aperiodic = (draw: () => number) => ({ interval: 0.05 - 0.05 * Math.log(1 - draw()), bytes: 200 * (1 + Math.floor(draw() * 5)) });
const fleet = (network: NrV2xNetwork, traffic?: typeof aperiodic) =>
  runSidelinkFleet({
    network,
    densityVehPerKm: 120,
    roadM: 1500,
    rateHz: 10,
    sizeBytes: 190,
    durationS: 2.5,
    warmupS: 1.2,
    seed: 3,
    ...(traffic ? { traffic } : {}),
  });

describe('the builtin nr-v2x channel (NR-V2X Mode 2)', () => {
  it('delivers at the end of a 0.5 ms slot at numerology 1, and of a 0.25 ms slot at numerology 2', () => {
    for (const [numerology, slots] of [
      [1, 2000],
      [2, 4000],
    ]) {
      const { channel, send } = channelOf([0, 50], { ...QUIET, numerology });
      send(0, 0.01013);
      const [out] = channel.deliverDue(0.2);
      expect(out.lost).toBeUndefined();
      expect(out.at).toBeGreaterThan(0.0102);
      expect(out.at).toBeLessThanOrEqual(0.111);
      expect(Math.abs(out.at * slots - Math.round(out.at * slots))).toBeLessThan(1e-6);
    }
  });

  it('dynamic scheduling selects a new resource for every packet; SPS keeps its reservation', () => {
    const sps = channelOf([0, 50]);
    const dynamic = channelOf([0, 50], { ...QUIET, scheduling: 'dynamic' });
    for (const c of [sps, dynamic]) for (let k = 0; k < 30; k++) c.send(0, 0.0005 + k * 0.1);
    expect(sps.channel.deliverDue(4).filter((d) => !d.lost)).toHaveLength(30);
    expect(dynamic.channel.deliverDue(4).filter((d) => !d.lost)).toHaveLength(30);
    expect(sps.channel.selections).toBeLessThanOrEqual(6);
    expect(dynamic.channel.selections).toBe(30);
  });

  it('sends each packet once more per retransmission, on its own slot within the delay budget, and gives each receiver one outcome', () => {
    const { channel, send } = channelOf([0, 50, 5000], { ...QUIET, retransmissions: 2, scheduling: 'dynamic' });
    for (let k = 0; k < 20; k++) send(0, 0.0005 + k * 0.1);
    const out = channel.deliverDue(3);
    // one outcome per packet and receiver: delivered to the near car, below sensitivity at the far one
    expect(out).toHaveLength(40);
    expect(out.filter((d) => d.to === 'car1').every((d) => !d.lost)).toBe(true);
    expect(out.filter((d) => d.to === 'car2').every((d) => d.lost === 'below-sensitivity')).toBe(true);
    // the far car learns of the three copies only by the CBR: three busy subchannel-slots per packet at the near car
    const busy = channel.takeChannelBusy(3).filter((b) => b.car === 'car1' && b.start >= 0.1 && b.end <= 1.9);
    expect(busy.every((b) => Math.abs(b.busyRatio - 3 / (200 * 5)) < 1e-9)).toBe(true);
  });

  it('as the published NR Mode 2 results: SPS beats dynamic scheduling on periodic fixed-size traffic, dynamic narrows the gap or wins on aperiodic variable-size traffic, retransmissions raise delivery at distance', () => {
    const periodicSps = fleet(QUIET).outcomes;
    const periodicDynamic = fleet({ ...QUIET, scheduling: 'dynamic' }).outcomes;
    expect(pdr(periodicSps, 0, 200)).toBeGreaterThan(pdr(periodicDynamic, 0, 200) + 0.01);
    expect(pdr(periodicSps, 200, 400)).toBeGreaterThan(pdr(periodicDynamic, 200, 400));

    const aperiodicSps = fleet(QUIET, aperiodic);
    const aperiodicDynamic = fleet({ ...QUIET, scheduling: 'dynamic' }, aperiodic);
    // SPS reselects for packets its reservation cannot carry (size) far more often than on periodic traffic
    expect(aperiodicSps.channel.selections).toBeGreaterThan(2 * fleet(QUIET).channel.selections);
    expect(pdr(aperiodicDynamic.outcomes, 300, 450)).toBeGreaterThan(pdr(aperiodicSps.outcomes, 300, 450));

    const withCopy = fleet({ ...QUIET, retransmissions: 1 }).outcomes;
    expect(pdr(withCopy, 300, 450)).toBeGreaterThan(pdr(periodicSps, 300, 450) + 0.03);
    expect(pdr(withCopy, 0, 200)).toBeGreaterThanOrEqual(pdr(periodicSps, 0, 200));
  }, 120_000);
});
