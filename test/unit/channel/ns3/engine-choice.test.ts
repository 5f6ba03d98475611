import { describe, expect, it } from 'vitest';
import { chooseEngine } from '../../../../src/channel/ns3/engine-choice.js';
import type { ResolvedNetwork } from '../../../../src/scenario/resolved.js';

const csma: ResolvedNetwork = { channel: 'csma', delay: 0.01, dataRate: 1e8, loss: 0 };
const wifi: ResolvedNetwork = {
  channel: 'wifi-80211p',
  txPower: 20,
  propagation: 'log-distance',
  obstacles: 'map',
  antennaHeight: 1.5,
  noiseFigure: 7,
  rate: 6e6,
  shadowing: 0,
};
const installed = async () => true;
const absent = async () => false;

describe('channel engine of the simulated runtime', () => {
  it('is ns-3 when installed and the scenario names none, else builtin', async () => {
    expect(await chooseEngine(csma, installed)).toBe('ns3');
    expect(await chooseEngine(csma, absent)).toBe('builtin');
  });

  it("keeps the scenario's choice", async () => {
    expect(await chooseEngine({ ...csma, engine: 'builtin' }, installed)).toBe('builtin');
    expect(await chooseEngine({ ...csma, engine: 'ns3' }, installed)).toBe('ns3');
  });

  it('refuses ns-3 work without ns-3, naming what is missing and how to install it', async () => {
    await expect(chooseEngine({ ...csma, engine: 'ns3' }, absent)).rejects.toThrow(
      /network\.engine: ns3 needs ns-3, which is not installed/,
    );
    await expect(chooseEngine({ ...wifi, engine: 'ns3' }, absent)).rejects.toMatchObject({
      message: expect.stringMatching(/network\.engine: ns3 needs ns-3/),
      hint: expect.stringMatching(/setup-ns3\.sh/),
    });
  });

  it('runs wifi-80211p in the builtin engine when ns-3 is absent, and in ns-3 when it is installed', async () => {
    expect(await chooseEngine(wifi, absent)).toBe('builtin');
    expect(await chooseEngine(wifi, installed)).toBe('ns3');
  });
});
