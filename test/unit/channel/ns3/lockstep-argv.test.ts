import { describe, expect, it } from 'vitest';
import { channelBusyWindowNs, lockstepArgv, wifiFlags } from '../../../../src/channel/ns3/lockstep/lockstep-argv.js';
import type { WifiNetwork } from '../../../../src/scenario/resolved.js';
import { wifiNetwork } from '../../../support/radio/networks.js';

const wifi = wifiNetwork;

describe('the lock-step program argv', () => {
  it('a radio with the default keys gets the flags it had before they existed, and a 100 ms busy window', () => {
    expect(lockstepArgv({ network: wifi(), nodes: 3, run: 7 })).toEqual([
      '--channel=wifi-80211p',
      '--nodes=3',
      '--seed=1',
      '--run=7',
      '--txPower=20',
      '--propagation=log-distance',
      '--antennaHeight=1.5',
      '--noiseFigure=7',
      '--rate=OfdmRate6MbpsBW10MHz',
      '--cbrWindow=100000000',
    ]);
  });

  it('shadowing, noise floor and carrier-sense threshold go only when set to other than their defaults', () => {
    expect(wifiFlags(wifi({ shadowing: 3, noiseFloor: -95, csThreshold: -85, propagation: 'winner-b1' }), '/tmp/walls.grid')).toEqual([
      '--txPower=20',
      '--propagation=winner-b1',
      '--antennaHeight=1.5',
      '--noiseFigure=7',
      '--rate=OfdmRate6MbpsBW10MHz',
      '--obstacles=/tmp/walls.grid',
      '--shadowing=3',
      '--noiseFloor=-95',
      '--csThreshold=-85',
    ]);
    // a noise floor is passed even at a value thermal noise could give: it replaces the noise figure
    expect(wifiFlags(wifi({ noiseFloor: -97 }), undefined)).toContain('--noiseFloor=-97');
    expect(wifiFlags(wifi({ shadowing: 0 }), undefined).some((a) => /shadowing|csThreshold|noiseFloor/.test(a))).toBe(false);
    // a threshold the scenario sets is passed even at -82 dBm: it then also sets the busy threshold
    expect(wifiFlags(wifi({ csThreshold: -82 }), undefined)).toContain('--csThreshold=-82');
  });

  it('a scenario resolved before the radio keys existed runs with the flags it always had', () => {
    const old = { ...wifi() } as Partial<WifiNetwork>;
    delete old.shadowing;
    delete old.csThreshold;
    expect(wifiFlags(old as WifiNetwork, undefined)).toEqual(wifiFlags(wifi(), undefined));
  });

  it('wired channels carry no busy window; the client reads the window from the argv it started the program with', () => {
    const csma = lockstepArgv({ network: { channel: 'csma', delay: 0.01, dataRate: 1e6, loss: 0 }, nodes: 2, run: 1 });
    expect(channelBusyWindowNs(csma)).toBeUndefined();
    expect(channelBusyWindowNs(lockstepArgv({ network: wifi(), nodes: 2, run: 1 }))).toBe(100_000_000);
  });
});
