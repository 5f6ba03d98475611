import { describe, expect, it } from 'vitest';
import { breakDownLatency, parseFrameLog } from '../../../../src/channel/ns3/frame-log.js';

const origin = 1_700_000_000_000_000_000;
const text = [
  `origin ${origin}`,
  // v0-3 read from tap 0 at simulated 5 ms; handled 80 us later in wall time.
  `tx ${origin + 5_080_000} 5000000 0 v0-3`,
  `tx ${origin + 6_000_000} 6000000 1 other/800/0a:00:00:00:00:01>01:00:5e:00:00:16`,
  // delivered to node 1 at simulated 5 ms + 10 ms delay + 12 us transmission, written 40 us late.
  `rx ${origin + 15_052_000} ${origin + 15_102_000} 15012000 1 v0-3`,
  'garbage line',
  '',
].join('\n');

describe('frame log', () => {
  it('parses origin, sent and delivered frames and skips anything else', () => {
    const log = parseFrameLog(text);
    expect(log.originNs).toBe(origin);
    expect(log.sent.map((s) => s.label)).toEqual(['v0-3', 'other/800/0a:00:00:00:00:01>01:00:5e:00:00:16']);
    expect(log.delivered).toEqual([
      { beforeNs: origin + 15_052_000, afterNs: origin + 15_102_000, simNs: 15_012_000, node: 1, label: 'v0-3' },
    ]);
  });

  it('splits a message latency into parts that add up to the total minus the delay', () => {
    const log = parseFrameLog(text);
    const sentS = (origin + 4_850_000) / 1e9; // 150 us before the reader took it
    const receivedS = (origin + 15_222_000) / 1e9; // 120 us after write() returned
    const [b] = breakDownLatency(log, [{ id: 'v0-3', to: 'v1', sent_s: sentS, received_s: receivedS }], 10, (name) =>
      Number(name.slice(1)),
    );
    expect(b.id).toBe('v0-3');
    expect(b.toSimulator).toBeCloseTo(0.15, 3);
    expect(b.model).toBeCloseTo(0.012, 3);
    expect(b.lateDelivery).toBeCloseTo(0.04, 3);
    expect(b.tapWrite).toBeCloseTo(0.05, 3);
    expect(b.egress).toBeCloseTo(0.12, 3);
    expect(b.handOff).toBeCloseTo(0.08, 3);
    expect(b.toSimulator + b.model + b.lateDelivery + b.tapWrite + b.egress).toBeCloseTo(b.total, 3);
    expect(b.total).toBeCloseTo(0.372, 3);
  });

  it('leaves out messages whose frames are not in the log (other node, unknown id)', () => {
    const log = parseFrameLog(text);
    const receipts = [
      { id: 'v0-3', to: 'v2', sent_s: 1, received_s: 2 },
      { id: 'v9-9', to: 'v1', sent_s: 1, received_s: 2 },
    ];
    expect(breakDownLatency(log, receipts, 10, (name) => Number(name.slice(1)))).toEqual([]);
  });
});
