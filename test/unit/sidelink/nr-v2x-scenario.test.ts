import { describe, expect, it } from 'vitest';
import { checkChannel } from '../../../src/api/check-channel.js';
import { chooseEngine } from '../../../src/channel/ns3/engine-choice.js';
import { describeNetwork } from '../../../src/scenario/describe-network.js';
import { type LoadScenarioOptions, loadScenario } from '../../../src/scenario/load-scenario.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const workspace = scenarioWorkspace('nr-v2x');

const withNetwork = (network: string) => `name: t
map: maps/corridor.yaml
duration: 2s
network: ${network}
vehicles:
  - name: car0
    start: { x: -20, y: -1 }
`;

const load = (network: string, options: LoadScenarioOptions = {}) => loadScenario(workspace.write(withNetwork(network)), options);
const problems = (network: string, options: LoadScenarioOptions = {}) => workspace.problems(withNetwork(network), options);

describe('network.channel: nr-v2x', () => {
  it('fills its defaults: 23 dBm, WINNER+ B1, 3 dB shadowing, numerology 1, 10-block subchannels, MCS 14, 100 ms, SPS, no retransmissions', async () => {
    expect((await load('{ channel: nr-v2x }')).network).toEqual({
      channel: 'nr-v2x',
      txPower: 23,
      propagation: 'winner-b1',
      obstacles: 'map',
      antennaHeight: 1.5,
      noiseFigure: 9,
      shadowing: 3,
      numerology: 1,
      subchannelSize: 10,
      rri: 0.1,
      mcs: 14,
      keepProbability: 0,
      scheduling: 'sps',
      retransmissions: 0,
    });
    const set = await load(
      '{ channel: nr-v2x, numerology: 2, subchannelSize: 12, scheduling: dynamic, retransmissions: 2, rri: 20ms, mcs: 20 }',
    );
    expect(set.network).toMatchObject({ numerology: 2, subchannelSize: 12, scheduling: 'dynamic', retransmissions: 2, rri: 0.02, mcs: 20 });
    expect(describeNetwork(set.network)).toBe(
      'nr-v2x, 23 dBm, winner-b1, numerology 2, 12-block subchannels, MCS 20, dynamic RRI 20 ms, 2 retransmissions, walls block',
    );
  });

  it("refuses bad values and the other sidelink's keys, naming the field and the fix", async () => {
    expect(await problems('{ channel: nr-v2x, subchannelSize: 11 }')).toEqual([
      'network.subchannelSize (line 4): 11 resource blocks is not a subchannel size of the 51-block channel at numerology 1; use one of 10, 12, 15, 20, 25, 50',
    ]);
    expect(await problems('{ channel: nr-v2x, numerology: 2, subchannelSize: 25 }')).toEqual([
      'network.subchannelSize (line 4): 25 resource blocks is not a subchannel size of the 24-block channel at numerology 2; use one of 10, 12, 15, 20',
    ]);
    expect(await problems('{ channel: nr-v2x, rri: 150ms }')).toEqual([
      'network.rri (line 4): 150ms is not an NR-V2X reservation interval; use a whole number of ms from 1ms to 99ms, or 100ms to 1s in steps of 100ms',
    ]);
    expect(await problems('{ channel: nr-v2x, subchannels: 4 }')).toEqual([
      'network.subchannels (line 4): subchannels applies only to channel: lte-v2x; nr-v2x splits its channel by subchannelSize (resource blocks): use subchannelSize',
    ]);
    expect(await problems('{ channel: lte-v2x, numerology: 1, scheduling: dynamic, retransmissions: 1 }')).toEqual([
      'network.numerology (line 4): numerology applies only to channel: nr-v2x; remove it or change network.channel',
      'network.scheduling (line 4): scheduling applies only to channel: nr-v2x; remove it or change network.channel',
      'network.retransmissions (line 4): retransmissions applies only to channel: nr-v2x; remove it or change network.channel',
    ]);
    expect(await problems('{ channel: lte-v2x, mcs: 24 }')).toEqual([
      "network.mcs (line 4): lte-v2x's PSSCH MCS is 0-20 (TS 36.213 Table 8.6.1-1); 24 is nr-v2x's table: use 0-20",
    ]);
    expect(await problems('{ channel: wifi-80211p, subchannelSize: 10 }')).toEqual([
      'network.subchannelSize (line 4): subchannelSize applies only to channel: nr-v2x; remove it or change network.channel',
    ]);
    expect(await problems('{ channel: nr-v2x, engine: ns3, rate: 6Mbps }')).toHaveLength(2);
    expect(await problems('{ channel: nr-v2x, retransmissions: 3 }')).toHaveLength(1);
    expect(await problems('{ channel: nr-v2x, scheduling: adaptive }')).toHaveLength(1);
    expect(await problems('{ channel: nr-v2x, numerology: 3 }')).toHaveLength(1);
  });

  it('is refused for the emulated runtime before anything starts, takes the builtin engine, and cavsim check channel refuses it', async () => {
    expect(await problems('{ channel: nr-v2x }', { runtime: 'docker' })).toEqual([
      'network.channel (line 4): nr-v2x has no ns-3 program, and the emulated runtime runs its channel in ns-3: run it with --runtime sim',
    ]);
    expect(await problems('{ channel: nr-v2x }', { runtime: 'sim' })).toEqual([]);
    const network = (await load('{ channel: nr-v2x }')).network;
    expect(await chooseEngine(network, async () => true)).toBe('builtin');
    const file = workspace.write(withNetwork('{ channel: nr-v2x }'));
    await expect(checkChannel(file, { checksDir: workspace.dir })).rejects.toThrow(
      /network\.channel is nr-v2x, which ns-3 has no program for/,
    );
  });
});
