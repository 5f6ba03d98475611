import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summariseLatency } from '../../../src/measurement/latency-stats.js';
import { ReceiptCsv, toReceipt, V2V_CSV_COLUMNS } from '../../../src/measurement/receipt-log.js';
import { decodeDatagram, encodeDatagram, epochNs } from '../../../src/runtime/emulated/v2v/wire.js';
import { interpolatedQuantile } from '../../../src/util/percentile.js';
import { scratchDir } from '../../support/scratch-dir.js';

describe('summariseLatency', () => {
  const row = (id: string, to: string, latency_ms: number) => ({ id, to, latency_ms });

  it('computes quantiles, max and mean over arrivals and loss over expected deliveries', () => {
    const received = [row('a-0', 'b', 10), row('a-1', 'b', 12), row('a-2', 'b', 11), row('a-3', 'b', 30), row('a-3', 'b', 99)];
    const expected = ['a-0', 'a-1', 'a-2', 'a-3', 'a-4', 'a-5'].map((id) => ({ id, to: 'b' }));
    const s = summariseLatency(received, expected);
    expect(s).toEqual({
      count: 4,
      lost: 2,
      p50_ms: 11.5,
      p99_ms: interpolatedQuantile([10, 11, 12, 30], 0.99),
      max_ms: 30,
      mean_ms: 15.75,
    });
  });

  it('counts a broadcast once per receiver', () => {
    const s = summariseLatency(
      [row('a-0', 'b', 5)],
      [
        { id: 'a-0', to: 'b' },
        { id: 'a-0', to: 'c' },
      ],
    );
    expect(s.count).toBe(1);
    expect(s.lost).toBe(1);
  });

  it('reports NaN latencies, not zeros, when nothing arrived', () => {
    const s = summariseLatency([], [{ id: 'x', to: 'y' }]);
    expect(s.count).toBe(0);
    expect(s.lost).toBe(1);
    expect(s.p50_ms).toBeNaN();
  });
});

describe('V2V wire format and receipt log', () => {
  it('round-trips a datagram and ignores stray traffic', () => {
    const d = { id: 'a-1', from: 'a', to: 'b', type: 'cam', sentAtNs: epochNs().toString(), body: { x: 1 } };
    expect(decodeDatagram(encodeDatagram(d))).toEqual(d);
    expect(decodeDatagram(Buffer.from('hello'))).toBeUndefined();
    expect(decodeDatagram(Buffer.from('{"id":"a"}'))).toBeUndefined();
  });

  it('stamps epoch nanoseconds close to Date.now()', () => {
    const ns = epochNs();
    expect(Math.abs(Number(ns / 1_000_000n) - Date.now())).toBeLessThan(50);
  });

  it('writes the exact columns and one row per arrival, readable while still open', () => {
    const path = join(scratchDir('cavsim-v2v-'), 'v2v.csv');
    const log = new ReceiptCsv(path);
    const sent = 1_700_000_000_123_456_789n;
    log.append(toReceipt({ id: 'a-0', from: 'a', to: 'b', type: 'cam' }, sent, sent + 10_250_000n, 120));
    expect(readFileSync(path, 'utf8')).toBe(`${V2V_CSV_COLUMNS.join(',')}\na-0,a,b,cam,1700000000.123456,1700000000.133706,10.25,120\n`);
    log.close();
    expect(V2V_CSV_COLUMNS.join(',')).toBe('id,from,to,type,sent_s,received_s,latency_ms,size_bytes');
  });
});
