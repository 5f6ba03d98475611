import type { RunEvent } from '../../../run/events.js';
import { progressCars } from './progress-cars.js';
import { formatSummary } from './summary-text.js';

/** Plain lines for logs and non-TTY output: phases, a progress line per simulated second, the summary. */
export function createLineReporter(write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)) {
  let lastSecond = -1;
  return (e: RunEvent) => {
    if (e.type === 'phase') write(`[${e.phase}]${e.detail ? ` ${e.detail}` : ''}`);
    else if (e.type === 'log') write(`${e.level}: ${e.message}`);
    else if (e.type === 'progress') {
      const second = Math.floor(e.t);
      if (second === lastSecond) return;
      lastSecond = second;
      const cars = progressCars(e.cars);
      const lateness = e.lateness ? ` late p99 ${e.lateness.p99_ms.toFixed(2)}ms` : '';
      write(`t=${e.t.toFixed(1)}/${e.duration}s ${cars} minTTC ${e.minTtc === null ? '-' : `${e.minTtc.toFixed(2)}s`}${lateness}`);
    } else if (e.type === 'summary') process.stdout.write(`${formatSummary(e.summary, e.runDir)}\n`);
  };
}
