import type { WifiNetwork } from '../../../src/scenario/resolved.js';

/** wifi-80211p with the scenario's defaults (ns-3's), no walls; `over` changes any key. */
export const wifiNetwork = (over: Partial<WifiNetwork> = {}): WifiNetwork => ({
  channel: 'wifi-80211p',
  txPower: 20,
  propagation: 'log-distance',
  obstacles: 'none',
  antennaHeight: 1.5,
  noiseFigure: 7,
  rate: 6e6,
  shadowing: 0,
  ...over,
});

/** The published model's radio (Sepulcre et al., docs/radio-reference.md) as scenario keys. */
export const REFERENCE_RADIO: WifiNetwork = wifiNetwork({
  txPower: 23,
  propagation: 'winner-b1',
  noiseFloor: -95,
  csThreshold: -85,
  shadowing: 3,
});
