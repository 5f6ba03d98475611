import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { ExpectedDelivery } from '../../src/measurement/latency-stats.js';
import { V2V_CSV_COLUMNS, type V2VReceipt } from '../../src/measurement/receipt-log.js';
import { V2V_PORT } from '../../src/runtime/emulated/v2v/wire.js';
import { readCsvRecords } from '../../src/util/csv-records.js';

export interface ProbeSpec {
  netns: string;
  name: string;
  bind: string;
  port?: number;
  peers: Array<{ name: string; address: string; port?: number }>;
  count: number;
  rate: number;
  csv: string;
  startOffsetMs?: number;
  lingerMs?: number;
  /** Characters of padding in each message's body. */
  sizeBytes?: number;
}

/**
 * Test and bench scaffolding. Runs one probe per spec inside its namespace; all start sending at the same wall-clock instant
 * (plus each spec's offset) once every probe has bound its socket.
 */
export async function runProbes(probeJs: string, specs: ProbeSpec[]): Promise<{ received: V2VReceipt[]; expected: ExpectedDelivery[] }> {
  const readies: Promise<void>[] = [];
  const finishes: Promise<ExpectedDelivery[]>[] = [];
  for (const s of specs) mkdirSync(dirname(s.csv), { recursive: true });
  const children = specs.map((s) => {
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        s.netns,
        process.execPath,
        probeJs,
        '--name',
        s.name,
        '--bind',
        s.bind,
        '--port',
        String(s.port ?? V2V_PORT),
        '--peers',
        s.peers.map((p) => `${p.name}=${p.address}${p.port ? `:${p.port}` : ''}`).join(','),
        '--count',
        String(s.count),
        '--rate',
        String(s.rate),
        '--csv',
        s.csv,
        '--linger-ms',
        String(s.lingerMs ?? 1500),
        '--size-bytes',
        String(s.sizeBytes ?? 0),
        '--start-from-stdin',
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    let sentLine = '';
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const ready = new Promise<void>((resolve) =>
      createInterface({ input: child.stdout }).on('line', (l) => (l === 'PROBE-READY' ? resolve() : (sentLine = l))),
    );
    const failed = (code: number | null) => new Error(`probe ${s.name} exited ${code}: ${stderr}`);
    readies.push(Promise.race([ready, exit.then((code) => Promise.reject(failed(code)))]));
    finishes.push(
      exit.then((code) => (code === 0 ? (JSON.parse(sentLine) as { sent: ExpectedDelivery[] }).sent : Promise.reject(failed(code)))),
    );
    return child;
  });
  // Every rejection is observed: a probe that dies early must not take the caller down unhandled.
  finishes.forEach((f) => f.catch(() => {}));
  try {
    await Promise.all(readies);
  } catch (err) {
    children.forEach((c) => c.kill('SIGKILL'));
    await Promise.allSettled(finishes);
    throw err;
  }
  const startAt = Date.now() + 300;
  specs.forEach((s, i) => children[i].stdin.end(`${startAt + (s.startOffsetMs ?? 0)}\n`));
  const expected = (await Promise.all(finishes)).flat();
  return { received: specs.flatMap((s) => readReceipts(s.csv)), expected };
}

export function readReceipts(path: string): V2VReceipt[] {
  const [header = [], ...rows] = readCsvRecords(readFileSync(path, 'utf8')).map((r) => r.cells);
  if (header.join(',') !== V2V_CSV_COLUMNS.join(',')) throw new Error(`unexpected header in ${path}: ${header.join(',')}`);
  return rows.map((f) => {
    return { id: f[0], from: f[1], to: f[2], type: f[3], sent_s: +f[4], received_s: +f[5], latency_ms: +f[6], size_bytes: +f[7] };
  });
}
