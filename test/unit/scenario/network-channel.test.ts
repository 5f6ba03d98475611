import { describe, expect, it } from 'vitest';
import { loadScenario, type LoadScenarioOptions } from '../../../src/scenario/load-scenario.js';
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

  it('an unknown channel names the known ones; wifi is not one yet', async () => {
    expect(await problems('{ channel: latncy }')).toEqual([expect.stringMatching(/^network\.channel \(line 4\): "latncy" is not allowed; did you mean "latency"\? use one of csma, latency$/)]);
    expect(await problems('{ channel: wifi-80211p }')).toEqual([expect.stringMatching(/use one of csma, latency$/)]);
  });

  it('engine: ns3 is refused as not available yet; builtin is accepted', async () => {
    expect(await problems('{ engine: ns3 }')).toEqual([expect.stringMatching(/^network\.engine \(line 4\): engine: ns3 .* is not available yet; remove the field or use engine: builtin$/)]);
    expect((await load('{ engine: builtin, channel: latency }', { runtime: 'sim' })).network).toMatchObject({ engine: 'builtin' });
  });

  it('the emulated runtime refuses the latency channel and its jitter; the simulated one runs them', async () => {
    expect(await problems('{ channel: latency, jitter: 1ms }', { runtime: 'docker' })).toEqual([
      expect.stringMatching(/^network\.channel \(line 4\): the emulated runtime has only the csma channel yet; run channel: latency with --runtime sim/),
      expect.stringMatching(/^network\.jitter \(line 4\): jitter needs channel: latency, which the emulated runtime does not have yet/),
    ]);
    expect(await problems('{ channel: latency }', { runtime: 'docker' })).toHaveLength(1);
    expect(await problems('{ channel: latency, jitter: 1ms }', { runtime: 'sim' })).toEqual([]);
    expect(await problems('{ channel: latency, jitter: 1ms }')).toEqual([]);
  });

  it('--set can switch the channel, and is refused the same way', async () => {
    expect(await problems('{ delay: 10ms }', { runtime: 'docker', overrides: ['network.channel=latency'] })).toEqual([
      expect.stringMatching(/^network\.channel \(from --set\): the emulated runtime has only the csma channel yet/),
    ]);
  });

  it('the emulated runtime warns that it ignores engine', async () => {
    expect((await load('{ engine: builtin }', { runtime: 'docker' })).warnings).toEqual([
      expect.stringMatching(/^network\.engine \(line 4\): ignored: the emulated runtime always runs the channel in ns-3/),
    ]);
  });
});
