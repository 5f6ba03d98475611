/**
 * What a reader calls a swept scenario field, for axis titles: `network.delay` is "V2V delay".
 * Vehicle and app paths match with any car (`vehicles.car1.start.speed` or `vehicles.*.…`).
 */
const NAMES: [RegExp, string][] = [
  [/^network\.delay$/, 'V2V delay'],
  [/^network\.jitter$/, 'V2V jitter'],
  [/^network\.dataRate$/, 'channel data rate'],
  [/^network\.loss$/, 'frame loss probability'],
  [/^network\.txPower$/, 'transmit power'],
  [/^network\.antennaHeight$/, 'antenna height'],
  [/^network\.noiseFigure$/, 'noise figure'],
  [/^network\.rate$/, 'PHY rate'],
  [/^traffic\.density$/, 'traffic density'],
  [/^traffic\.speed$/, 'traffic speed'],
  [/^traffic\.road\.lanes$/, 'lanes'],
  [/^seed$/, 'seed'],
  [/^duration$/, 'duration'],
  [/^physics\.timestep$/, 'physics step'],
  [/^vehicles\.[^.]+\.start\.speed$/, 'initial speed'],
  [/^vehicles\.[^.]+\.start\.x$/, 'start x'],
  [/^vehicles\.[^.]+\.controlRate$/, 'control rate'],
  [/^vehicles\.[^.]+\.compute\.fixed$/, 'compute time per tick'],
  [/^vehicles\.[^.]+\.compute\.scale$/, 'compute time scale'],
  [/^vehicles\.[^.]+\.apps\.[^.]+\.threshold$/, 'TTC threshold'],
  [/^vehicles\.[^.]+\.apps\.[^.]+\.rate$/, 'beacon rate'],
  [/^vehicles\.[^.]+\.apps\.[^.]+\.size$/, 'beacon size'],
  [/^vehicles\.[^.]+\.apps\.[^.]+\.gap$/, 'CACC gap source'],
  [/^vehicles\.[^.]+\.apps\.[^.]+\.timeGap$/, 'CACC time gap'],
  [/^vehicles\.[^.]+\.params\.mu$/, 'friction coefficient'],
];

/** "V2V delay [ms]"; an unknown field keeps its path, still with its unit. */
export function fieldTitle(path: string, unit?: string): string {
  const name = NAMES.find(([pattern]) => pattern.test(path))?.[1] ?? path;
  // a density written 120/km counts vehicles
  const shown = unit?.startsWith('/') && path.startsWith('traffic.') ? `veh${unit}` : unit;
  return shown ? `${name} [${shown}]` : name;
}
