import { describe, expect, it } from 'vitest';
import { realtimeChannelArgv } from '../../../../src/channel/ns3/realtime-argv.js';

describe('the real-time channel argv', () => {
  it('carries the typed settings as ns-3 Time and DataRate strings, once', () => {
    expect(
      realtimeChannelArgv({
        network: { channel: 'csma', delay: 0.01, dataRate: 100e6, loss: 0 },
        taps: ['tap-a', 'tap-b'],
        run: 3,
        durationS: 30,
      }),
    ).toEqual(['--taps=tap-a,tap-b', '--channel=csma', '--delay=10ms', '--dataRate=100Mbps', '--loss=0', '--run=3', '--duration=30']);
  });

  it('adds the jitter of a latency channel; a zero delay is 0s', () => {
    expect(
      realtimeChannelArgv({ network: { channel: 'latency', delay: 0, jitter: 0.0025, dataRate: 2e6, loss: 0.1 }, taps: ['t'], run: 1 }),
    ).toEqual(['--taps=t', '--channel=latency', '--delay=0s', '--jitter=2.5ms', '--dataRate=2Mbps', '--loss=0.1', '--run=1']);
  });

  it("the built-in program's extras: each vehicle's MAC and where lost frames are written", () => {
    const argv = realtimeChannelArgv({
      network: { channel: 'csma', delay: 0.01, dataRate: 1e6, loss: 0 },
      taps: ['a', 'b'],
      run: 1,
      macs: ['02:00:00:00:00:01', '02:00:00:00:00:02'],
      outcomesFile: '/runs/r/ns3-losses.txt',
    });
    expect(argv).toContain('--macs=02:00:00:00:00:01,02:00:00:00:00:02');
    expect(argv).toContain('--outcomes=/runs/r/ns3-losses.txt');
    const wifi = realtimeChannelArgv({
      network: {
        channel: 'wifi-80211p',
        txPower: 20,
        propagation: 'friis',
        obstacles: 'none',
        antennaHeight: 1.5,
        noiseFigure: 7,
        rate: 6e6,
        shadowing: 0,
      },
      taps: ['a'],
      run: 1,
      outcomesFile: '/o',
    });
    expect(wifi).toContain('--outcomes=/o');
    expect(wifi.some((a) => a.startsWith('--macs'))).toBe(false);
  });

  it('takes the radio keys as the lock-step program does; the real-time program reports no channel busy ratio', () => {
    const argv = realtimeChannelArgv({
      network: {
        channel: 'wifi-80211p',
        txPower: 23,
        propagation: 'winner-b1',
        obstacles: 'none',
        antennaHeight: 1.5,
        noiseFigure: 9,
        rate: 6e6,
        shadowing: 3,
        noiseFloor: -95,
        csThreshold: -85,
      },
      taps: ['a', 'b'],
      run: 2,
    });
    expect(argv).toEqual([
      '--taps=a,b',
      '--channel=wifi-80211p',
      '--txPower=23',
      '--propagation=winner-b1',
      '--antennaHeight=1.5',
      '--noiseFigure=9',
      '--rate=OfdmRate6MbpsBW10MHz',
      '--shadowing=3',
      '--noiseFloor=-95',
      '--csThreshold=-85',
      '--run=2',
    ]);
  });
});
