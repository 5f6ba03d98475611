import { describe, expect, it } from 'vitest';
import { type LoadScenarioOptions, loadScenario } from '../../../src/scenario/load-scenario.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const workspace = scenarioWorkspace('network');

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

describe('network.channel, jitter and engine', () => {
  it('csma is the default and has no jitter', async () => {
    const s = await load('{ delay: 20ms }');
    expect(s.network).toEqual({ channel: 'csma', delay: 0.02, dataRate: 100e6, loss: 0 });
  });

  it('latency resolves jitter to seconds, 0 when not given', async () => {
    expect((await load('{ channel: latency, delay: 100ms, jitter: 2ms, dataRate: 2Mbps, loss: 0.01 }')).network).toEqual({
      channel: 'latency',
      delay: 0.1,
      jitter: 0.002,
      dataRate: 2e6,
      loss: 0.01,
    });
    expect((await load('{ channel: latency }')).network).toMatchObject({ channel: 'latency', jitter: 0 });
  });

  it('jitter with csma is refused with the fix, at its line', async () => {
    expect(await problems('{ channel: csma, jitter: 2ms }')).toEqual([
      'network.jitter (line 4): jitter applies only to channel: latency (the csma channel has a fixed delay); remove it or set channel: latency',
    ]);
    expect(await problems('{ jitter: 0ms }')).toHaveLength(1);
  });

  it('an unknown channel names the known ones', async () => {
    expect(await problems('{ channel: latncy }')).toEqual([
      expect.stringMatching(
        /^network\.channel \(line 4\): "latncy" is not allowed; did you mean "latency"\? use one of csma, latency, wifi-80211p, lte-v2x, nr-v2x$/,
      ),
    ]);
  });

  it('engine is kept when named: ns3 and builtin both run csma and latency', async () => {
    expect((await load('{ engine: ns3 }', { runtime: 'sim' })).network).toMatchObject({ engine: 'ns3' });
    expect((await load('{ engine: builtin, channel: latency }', { runtime: 'sim' })).network).toMatchObject({ engine: 'builtin' });
  });

  it('wifi-80211p fills its radio defaults: 20 dBm, log-distance, walls block, 1.5 m antennas, 7 dB noise figure, 6 Mbit/s, no shadowing, the carrier sense of ns-3', async () => {
    expect((await load('{ channel: wifi-80211p }')).network).toEqual({
      channel: 'wifi-80211p',
      txPower: 20,
      propagation: 'log-distance',
      obstacles: 'map',
      antennaHeight: 1.5,
      noiseFigure: 7,
      rate: 6e6,
      shadowing: 0,
    });
    expect(
      (await load('{ channel: wifi-80211p, txPower: -5dBm, propagation: 3gpp-v2v-urban, obstacles: none, rate: 12Mbps, noiseFigure: 9dB }'))
        .network,
    ).toMatchObject({
      txPower: -5,
      propagation: '3gpp-v2v-urban',
      obstacles: 'none',
      rate: 12e6,
      noiseFigure: 9,
    });
  });

  it("each channel kind refuses the other kinds' fields, the builtin engine for wifi, and rates the radio lacks", async () => {
    expect(await problems('{ channel: wifi-80211p, dataRate: 1Mbps, jitter: 1ms }')).toEqual([
      'network.dataRate (line 4): dataRate applies only to channel: csma or latency; remove it or change network.channel',
      'network.jitter (line 4): jitter applies only to channel: csma or latency; remove it or change network.channel',
    ]);
    // added on top of the radio by the builtin engine (wifi-delay-loss.test.ts)
    expect(await problems('{ channel: wifi-80211p, delay: 10ms, loss: 0.1 }')).toEqual([]);
    expect(await problems('{ channel: latency, txPower: 20dBm }')).toEqual([
      'network.txPower (line 4): txPower applies only to channel: wifi-80211p or lte-v2x or nr-v2x; remove it or change network.channel',
    ]);
    expect(await problems('{ channel: wifi-80211p, engine: builtin, shadowing: 3dB, csThreshold: -85dBm, noiseFloor: -95dBm }')).toEqual(
      [],
    );
    expect(await problems('{ channel: wifi-80211p, csThreshold: -10dBm }')).toEqual([
      expect.stringMatching(/^network\.csThreshold \(line 4\): -10dBm is out of range; use a value from -130dBm to -30dBm/),
    ]);
    expect(await problems('{ channel: wifi-80211p, rate: 5Mbps }')).toEqual([
      expect.stringMatching(/5Mbps is not an 802\.11p rate on 10 MHz; use one of 3Mbps, 4\.5Mbps, 6Mbps/),
    ]);
    expect(await problems('{ channel: wifi-80211p, txPower: 20mW }')).toEqual([
      expect.stringMatching(/unknown unit "mW" in "20mW"; use one of dbm/),
    ]);
    expect(await problems('{ channel: wifi-80211p, txPower: 60dBm }')).toEqual([
      expect.stringMatching(/60dBm is out of range; use a value from -30dBm to 40dBm/),
    ]);
  });

  it('both runtimes run every channel kind, and so does a program of your own', async () => {
    for (const runtime of ['docker', 'sim'] as const) {
      expect(await problems('{ channel: latency, jitter: 1ms, loss: 0.1 }', { runtime })).toEqual([]);
      expect(await problems('{ channel: wifi-80211p }', { runtime })).toEqual([]);
    }
    workspace.write('// a user program', 'my-channel.cc');
    expect(await problems('{ channel: wifi-80211p, script: my-channel.cc }', { runtime: 'docker' })).toEqual([]);
  });

  it('--set can switch the channel, and is refused the same way', async () => {
    expect(await problems('{ jitter: 10ms }', { runtime: 'docker', overrides: ['network.channel=wifi-80211p'] })).toEqual([
      expect.stringMatching(/^network\.jitter \(line 4\): jitter applies only to channel: csma or latency/),
    ]);
    expect(await problems('{ delay: 10ms }', { runtime: 'docker', overrides: ['network.channel=wifi-80211p'] })).toEqual([
      expect.stringMatching(/^network\.delay \(line 4\): delay on wifi-80211p is added by the simulated runtime's builtin engine only/),
    ]);
    expect(
      await problems('{ dataRate: 1Mbps }', { runtime: 'docker', overrides: ['network.channel=wifi-80211p', 'network.dataRate=1Mbps'] }),
    ).toHaveLength(1);
    expect(await problems('{ channel: csma }', { runtime: 'docker', overrides: ['network.channel=wifi-80211p'] })).toEqual([]);
  });

  it('the emulated runtime warns that it ignores engine', async () => {
    expect((await load('{ engine: builtin }', { runtime: 'docker' })).warnings).toEqual([
      expect.stringMatching(/^network\.engine \(line 4\): ignored: the emulated runtime always runs the channel in ns-3/),
    ]);
  });
});

describe('network.script', () => {
  it('must be a regular .cc file: a device, a folder or another kind of file is refused, naming the field', async () => {
    expect(await problems('{ script: /dev/zero }', { runtime: 'docker' })).toEqual([
      expect.stringMatching(/network\.script.*\/dev\/zero is not an ns-3 program's source: give a regular \.cc file/),
    ]);
    expect(await problems('{ script: /tmp }', { runtime: 'docker' })).toEqual([
      expect.stringMatching(/network\.script.*is not an ns-3 program's source/),
    ]);
  });
});
