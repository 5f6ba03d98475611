import type { RadioKeys } from './resolved.js';
import type { ScenarioParsed } from './schema.js';

/** The radio keys as given, each absent one from the technology's defaults. */
export function radioKeys(parsed: ScenarioParsed['network'], defaults: Omit<RadioKeys, 'noiseFloor'>): RadioKeys {
  return {
    txPower: parsed.txPower ?? defaults.txPower,
    propagation: parsed.propagation ?? defaults.propagation,
    obstacles: parsed.obstacles ?? defaults.obstacles,
    antennaHeight: parsed.antennaHeight ?? defaults.antennaHeight,
    noiseFigure: parsed.noiseFigure ?? defaults.noiseFigure,
    shadowing: parsed.shadowing ?? defaults.shadowing,
    ...(parsed.noiseFloor !== undefined ? { noiseFloor: parsed.noiseFloor } : {}),
  };
}
