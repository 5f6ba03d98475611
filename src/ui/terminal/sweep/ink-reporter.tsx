import { Box, render, Text } from 'ink';
import { useEffect, useState } from 'react';
import type { SweepEvent } from '../../../sweep/events.js';
import type { SweepResult } from '../../../sweep/result-row.js';
import { describeValues, formatCritical, formatDurationShort } from './line-reporter.js';

type Listener = (e: SweepEvent) => void;

/** Rows of the live table, in order of the swept values, around the latest finished run (summary.csv has them all). */
const TABLE_ROWS = 12;

/** Orders runs by their swept values (numbers by value), then seed. */
function byValues(a: SweepResult, b: SweepResult): number {
  for (const path of Object.keys(a.values)) {
    const x = a.values[path];
    const y = b.values[path];
    const d = x?.value !== undefined && y?.value !== undefined ? x.value - y.value : (x?.text ?? '').localeCompare(y?.text ?? '');
    if (d) return d;
  }
  return a.seed - b.seed;
}

/** The TABLE_ROWS rows of the ordered table centred on `latest`. */
function window(ordered: SweepResult[], latest: SweepResult | undefined): SweepResult[] {
  if (ordered.length <= TABLE_ROWS || !latest) return ordered.slice(0, TABLE_ROWS);
  const at = ordered.indexOf(latest);
  const first = Math.min(Math.max(0, at - Math.floor(TABLE_ROWS / 2)), ordered.length - TABLE_ROWS);
  return ordered.slice(first, first + TABLE_ROWS);
}

const cell = (v: number | null, digits: number) => (v === null ? 'none' : v.toFixed(digits));

function bar(done: number, total: number, width = 30): string {
  const filled = total ? Math.round((done / total) * width) : 0;
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

function ResultRow({ r }: { r: SweepResult }) {
  const colour = r.status === 'failed' ? 'red' : r.status === 'invalid' ? 'gray' : r.collision ? 'red' : 'green';
  const verdict = r.status === 'completed' ? (r.collision ? 'collision' : 'ok') : r.status;
  return (
    <Text>
      {'  '}
      {describeValues(r).padEnd(36)} {String(Number.isFinite(r.seed) ? r.seed : '-').padStart(4)} {cell(r.min_ttc_s, 3).padStart(9)}{' '}
      {cell(r.min_distance_m, 3).padStart(9)} {cell(r.v2v_p99_ms, 1).padStart(8)} <Text color={colour}>{verdict}</Text>
    </Text>
  );
}

function SweepView({ subscribe }: { subscribe: (l: Listener) => void }) {
  const [start, setStart] = useState<Extract<SweepEvent, { type: 'sweep-start' }>>();
  const [progress, setProgress] = useState({ done: 0, total: 0, eta: null as number | null });
  const [results, setResults] = useState<SweepResult[]>([]);
  const [running, setRunning] = useState<string[]>([]);
  const [notes, setNotes] = useState<string[]>([]);
  const [end, setEnd] = useState<string[]>([]);
  useEffect(() => {
    subscribe((e) => {
      if (e.type === 'sweep-start') {
        setStart(e);
        setProgress({ done: e.alreadyDone, total: e.total, eta: null });
      } else if (e.type === 'run-start') setRunning((r) => [...r, e.point.id]);
      else if (e.type === 'run-done') {
        setRunning((r) => r.filter((id) => id !== e.result.id));
        setResults((rs) => [...rs, e.result]);
        setProgress({ done: e.done, total: e.total, eta: e.etaSeconds });
      } else if (e.type === 'warn') setNotes((n) => [...n.slice(-3), e.message]);
      else if (e.type === 'critical-result') setEnd((l) => [...l, ...formatCritical(e.result)]);
      else if (e.type === 'answer') setEnd((l) => [...l, `answer: ${e.answer.text}`]);
      else if (e.type === 'sweep-done')
        setEnd((l) => [
          ...l,
          `${e.stopped ? 'stopped' : 'done'}: ${e.done} runs in ${formatDurationShort(e.wallSeconds)}${e.stopped ? `; continue with --resume ${e.sweepId}` : ''}`,
        ]);
    });
  }, [subscribe]);
  return (
    <Box flexDirection="column">
      {start && (
        <Text color="cyan">
          sweep {start.sweepId} ({start.runtime}, {start.jobs} at a time) → {start.dir}
        </Text>
      )}
      <Text>
        {bar(progress.done, progress.total)} {progress.done}/{progress.total}
        {progress.eta && progress.done < progress.total ? `  ETA ${formatDurationShort(progress.eta)}` : ''}
        {running.length ? `  running ${running.join(' ')}` : ''}
      </Text>
      <Text dimColor>
        {'  '}
        {'values'.padEnd(36)} {'seed'.padStart(4)} {'minTTC s'.padStart(9)} {'minDist m'.padStart(9)} {'p99 ms'.padStart(8)} verdict
      </Text>
      {results.length > TABLE_ROWS && (
        <Text
          dimColor
        >{`  ${results.length} runs finished; rows in order of the swept values, around the latest (V2V latency p99 in ms)`}</Text>
      )}
      {window([...results].sort(byValues), results.at(-1)).map((r) => (
        <ResultRow key={r.key} r={r} />
      ))}
      {notes.map((n, i) => (
        <Text key={i} color="yellow">
          warning: {n}
        </Text>
      ))}
      {end.map((l, i) => (
        <Text key={i}>{l}</Text>
      ))}
    </Box>
  );
}

/** Live terminal view of a sweep: progress, ETA, the finished points; fed by the same events as the line reporter. */
export function createSweepInkReporter(): { listener: Listener; done: () => Promise<void> } {
  let forward: Listener | undefined;
  const queued: SweepEvent[] = [];
  const subscribe = (l: Listener) => {
    forward = l;
    queued.splice(0).forEach(l);
  };
  const app = render(<SweepView subscribe={subscribe} />, { stdout: process.stderr });
  let finished = false;
  return {
    listener: (e) => {
      if (forward) forward(e);
      else queued.push(e);
    },
    done: async () => {
      if (finished) return;
      finished = true;
      await new Promise((r) => setTimeout(r, 50));
      app.unmount();
    },
  };
}
