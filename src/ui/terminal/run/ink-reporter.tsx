import { Box, render, Text } from 'ink';
import { useEffect, useState } from 'react';
import type { RunEvent } from '../../../run/events.js';
import { CARS_NAMED_MAX, progressCars } from './progress-cars.js';
import { formatSummary } from './summary-text.js';

type Listener = (e: RunEvent) => void;

function RunView({ subscribe }: { subscribe: (l: Listener) => void }) {
  const [phase, setPhase] = useState('starting');
  const [progress, setProgress] = useState<Extract<RunEvent, { type: 'progress' }>>();
  const [summary, setSummary] = useState<string>();
  const [logs, setLogs] = useState<string[]>([]);
  useEffect(() => {
    subscribe((e) => {
      if (e.type === 'phase') setPhase(`${e.phase}${e.detail ? `: ${e.detail}` : ''}`);
      else if (e.type === 'progress') setProgress(e);
      else if (e.type === 'log') setLogs((l) => [...l.slice(-4), `${e.level}: ${e.message}`]);
      else if (e.type === 'summary') setSummary(formatSummary(e.summary, e.runDir));
    });
  }, [subscribe]);
  return (
    <Box flexDirection="column">
      <Text color="cyan">{phase}</Text>
      {logs.map((l, i) => (
        <Text key={i} color="yellow">
          {l}
        </Text>
      ))}
      {progress && !summary && (
        <Box flexDirection="column">
          <Text>
            sim time {progress.t.toFixed(1)} / {progress.duration} s min TTC{' '}
            {progress.minTtc === null ? '-' : `${progress.minTtc.toFixed(2)} s`}
            {progress.lateness ? `    step lateness p99 ${progress.lateness.p99_ms.toFixed(2)} ms` : ''}
          </Text>
          {progress.cars.length > CARS_NAMED_MAX ? (
            <Text>
              {'  '}
              {progressCars(progress.cars)}
            </Text>
          ) : (
            progress.cars.map((c) => (
              <Text key={c.name} color={c.collided ? 'red' : c.braking ? 'yellow' : undefined}>
                {'  '}
                {c.name.padEnd(8)} {c.v.toFixed(2).padStart(6)} m/s {c.braking ? 'braking' : ''} {c.collided ? 'COLLIDED' : ''}
              </Text>
            ))
          )}
        </Box>
      )}
      {summary && <Text>{summary}</Text>}
    </Box>
  );
}

/** Live terminal view of a run; one reporter among others, fed by the same events. */
export function createInkReporter(): { listener: Listener; done: () => Promise<void> } {
  let forward: Listener | undefined;
  const queued: RunEvent[] = [];
  const subscribe = (l: Listener) => {
    forward = l;
    queued.splice(0).forEach(l);
  };
  const app = render(<RunView subscribe={subscribe} />);
  return {
    listener: (e) => {
      if (forward) forward(e);
      else queued.push(e);
    },
    done: async () => {
      await new Promise((r) => setTimeout(r, 50));
      app.unmount();
    },
  };
}
