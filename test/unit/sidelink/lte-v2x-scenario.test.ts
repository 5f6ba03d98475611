import { describe, expect, it } from 'vitest';
import { checkChannel } from '../../../src/api/check-channel.js';
import { chooseEngine } from '../../../src/channel/ns3/engine-choice.js';
import { lockstepArgv } from '../../../src/channel/ns3/lockstep/lockstep-argv.js';
import { UserInputError } from '../../../src/errors.js';
import { describeNetwork } from '../../../src/scenario/describe-network.js';
import { type LoadScenarioOptions, loadScenario } from '../../../src/scenario/load-scenario.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const workspace = scenarioWorkspace('lte-v2x');

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

describe('network.channel: lte-v2x', () => {
  it("fills the published highway configuration's defaults: 20 dBm, WINNER+ B1, 3 dB shadowing, 9 dB noise figure, 4 subchannels, 100 ms, MCS 9, keep 0", async () => {
    expect((await load('{ channel: lte-v2x }')).network).toEqual({
      channel: 'lte-v2x',
      txPower: 20,
      propagation: 'winner-b1',
      obstacles: 'map',
      antennaHeight: 1.5,
      noiseFigure: 9,
      shadowing: 3,
      subchannels: 4,
      rri: 0.1,
      mcs: 9,
      keepProbability: 0,
    });
    const set = await load(
      '{ channel: lte-v2x, engine: builtin, subchannels: 2, rri: 50ms, mcs: 7, keepProbability: 0.4, txPower: 23dBm }',
    );
    expect(set.network).toMatchObject({ engine: 'builtin', subchannels: 2, rri: 0.05, mcs: 7, keepProbability: 0.4, txPower: 23 });
    expect(describeNetwork(set.network)).toBe('lte-v2x, 23 dBm, winner-b1, 2 subchannels, MCS 7, RRI 50 ms, walls block');
  });

  it('refuses engine: ns3, 802.11p keys, other kinds taking its keys, and reservation intervals the standard lacks, naming the field and the fix', async () => {
    expect(await problems('{ channel: lte-v2x, engine: ns3 }')).toEqual([
      'network.engine (line 4): lte-v2x has no ns-3 program: it runs only in the builtin engine; set engine: builtin or remove engine',
    ]);
    expect(await problems('{ channel: lte-v2x, rate: 6Mbps, csThreshold: -85dBm }')).toEqual([
      'network.rate (line 4): rate applies only to channel: wifi-80211p; remove it or change network.channel',
      'network.csThreshold (line 4): csThreshold applies only to channel: wifi-80211p; remove it or change network.channel',
    ]);
    expect(await problems('{ channel: wifi-80211p, subchannels: 4 }')).toEqual([
      'network.subchannels (line 4): subchannels applies only to channel: lte-v2x; remove it or change network.channel',
    ]);
    expect(await problems('{ channel: csma, mcs: 4 }')).toEqual([
      'network.mcs (line 4): mcs applies only to channel: lte-v2x or nr-v2x; remove it or change network.channel',
    ]);
    expect(await problems('{ channel: lte-v2x, rri: 30ms }')).toEqual([
      'network.rri (line 4): 30ms is not an LTE-V2X reservation interval; use 20ms, 50ms or 100ms to 1s in steps of 100ms',
    ]);
    expect(await problems('{ channel: lte-v2x, subchannels: 11 }')).toHaveLength(1);
    expect(await problems('{ channel: lte-v2x, keepProbability: 0.9 }')).toHaveLength(1);
  });

  it('is refused for the emulated runtime before anything starts (its channel is an ns-3 process)', async () => {
    expect(await problems('{ channel: lte-v2x }', { runtime: 'docker' })).toEqual([
      'network.channel (line 4): lte-v2x has no ns-3 program, and the emulated runtime runs its channel in ns-3: run it with --runtime sim',
    ]);
    expect(await problems('{ channel: lte-v2x }', { runtime: 'sim' })).toEqual([]);
  });

  it('always takes the builtin engine, even with ns-3 installed, and the ns-3 programs refuse it by name', async () => {
    const network = (await load('{ channel: lte-v2x }')).network;
    expect(await chooseEngine(network, async () => true)).toBe('builtin');
    await expect(chooseEngine({ ...network, engine: 'ns3' }, async () => true)).rejects.toThrow(
      /network\.engine: ns3 cannot run it; network\.channel: lte-v2x has no ns-3 program/,
    );
    expect(() => lockstepArgv({ network, nodes: 2, run: 1 })).toThrow(UserInputError);
  });

  it('cavsim check channel refuses it (no ns-3 to compare with) and says where it is validated instead', async () => {
    const file = workspace.write(withNetwork('{ channel: lte-v2x }'));
    await expect(checkChannel(file, { checksDir: workspace.dir })).rejects.toThrow(
      /network\.channel is lte-v2x, which ns-3 has no program for/,
    );
  });
});
