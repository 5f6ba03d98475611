import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProbes } from '../../../bench/testbed/probe-runner.js';
import { startTestbed } from '../../../bench/testbed/testbed.js';
import { FRAME_OVERHEAD_BYTES } from '../../../src/channel/frames.js';
import { createCommandRunner } from '../../../src/host/exec/command-runner.js';
import { Journal } from '../../../src/host/journal/journal.js';
import { createDirectOps } from '../../../src/host/network/hostnet-port.js';
import type { V2VReceipt } from '../../../src/measurement/receipt-log.js';
import type { WifiNetwork, WiredNetwork } from '../../../src/scenario/resolved.js';
import { wifiNetwork } from '../../support/radio/networks.js';
import { ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';
import { buildEntryPoints } from './support/build.js';

const real = requireReal('hostnet/channel-capacity.test.ts', rootProblem() ?? ns3Problem());
const DATA_RATE = 2e6;

/** Bits on the wire per second at the receiver, between its first and its last arrival. */
function wireThroughput(received: readonly V2VReceipt[]): number {
  const sorted = [...received].sort((a, b) => a.received_s - b.received_s);
  const bits = sorted.slice(1).reduce((sum, r) => sum + (r.size_bytes + FRAME_OVERHEAD_BYTES) * 8, 0);
  return bits / (sorted.at(-1)!.received_s - sorted[0].received_s);
}

describe.skipIf(real.skip)('an iperf-style UDP flood between two stand-in vehicles, 100 ms channel at 2 Mbit/s', () => {
  let probeJs = '';
  let dir = '';
  beforeAll(() => {
    real.assertPresent();
    probeJs = buildEntryPoints().probe;
    dir = mkdtempSync(join(tmpdir(), 'cavsim-capacity-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function flood(
    network: WiredNetwork | WifiNetwork,
    count: number,
    rate: number,
    channelArgs: (runDir: string) => string[] = () => [],
  ) {
    const runId = `it-capacity-${network.channel}-${process.pid}`;
    const runDir = join(dir, runId);
    const runner = createCommandRunner();
    const ops = createDirectOps(runner);
    const journal = Journal.open(join(runDir, 'journal.jsonl'));
    const bed = await startTestbed({ runId, vehicleCount: 2, network, runDir, journal, ops, runner, channelArgs: channelArgs(runDir) });
    try {
      const [a, b] = bed.plan.vehicles;
      const { received, expected } = await runProbes(probeJs, [
        {
          netns: bed.standIns.vehicles[0].netns.name,
          name: a.name,
          bind: a.ip,
          peers: [{ name: b.name, address: b.ip }],
          count,
          rate,
          sizeBytes: 1000,
          csv: join(runDir, 'a.csv'),
          lingerMs: 3000,
        },
        {
          netns: bed.standIns.vehicles[1].netns.name,
          name: b.name,
          bind: b.ip,
          peers: [],
          count: 0,
          rate: 1,
          csv: join(runDir, 'b.csv'),
          lingerMs: 3000 + (count / rate) * 1000,
        },
      ]);
      return { received, expected, runDir };
    } finally {
      await bed.channel?.stop();
      const report = await bed.teardown();
      expect(report.failed).toEqual([]);
    }
  }

  it('latency carries over 90% of its data rate, offered 30% more than it can take; csma at the same settings a few frames a second', async () => {
    const latency = await flood({ channel: 'latency', delay: 0.1, jitter: 0, dataRate: DATA_RATE, loss: 0 }, 600, 300);
    const latencyBps = wireThroughput(latency.received);
    const csma = await flood({ channel: 'csma', delay: 0.1, dataRate: DATA_RATE, loss: 0 }, 60, 30);
    const csmaBps = wireThroughput(csma.received);
    console.log(
      `emulated UDP at 100 ms, 2 Mbit/s: latency ${(latencyBps / 1e3).toFixed(0)} kbit/s on the wire (${latency.received.length}/${latency.expected.length} arrived), csma ${(csmaBps / 1e3).toFixed(0)} kbit/s (${csma.received.length}/${csma.expected.length})`,
    );
    expect(latencyBps / DATA_RATE).toBeGreaterThan(0.9);
    expect(Math.min(...latency.received.map((r) => r.latency_ms))).toBeGreaterThanOrEqual(100);
    expect(csmaBps / DATA_RATE).toBeLessThan(0.15);
  });

  it('802.11p at 6 Mbit/s between two stand-ins carries a UDP flood at over 1 Mbit/s, under its PHY rate', async () => {
    const wifi = wifiNetwork();
    const { received, expected } = await flood(wifi, 1500, 500);
    const bps = wireThroughput(received);
    console.log(
      `emulated UDP over 802.11p at 6 Mbit/s (stand-ins side by side, unicast with ACKs): ${(bps / 1e3).toFixed(0)} kbit/s on the wire (${received.length}/${expected.length} arrived)`,
    );
    expect(bps).toBeGreaterThan(1e6);
    expect(bps).toBeLessThan(6e6);
  });

  it('loss 0.3 on the latency channel loses about 30% of the frames, each reported by ns-3 as channel-loss', async () => {
    const outcomes = (runDir: string) => join(runDir, 'outcomes.txt');
    const { received, expected, runDir } = await flood(
      { channel: 'latency', delay: 0.01, jitter: 0.002, dataRate: 100e6, loss: 0.3 },
      400,
      100,
      (d) => [`--outcomes=${outcomes(d)}`],
    );
    const lostShare = 1 - received.length / expected.length;
    expect(lostShare).toBeGreaterThan(0.22);
    expect(lostShare).toBeLessThan(0.38);
    const arrived = new Set(received.map((r) => r.id));
    const missing = expected
      .filter((e) => !arrived.has(e.id))
      .map((e) => e.id)
      .sort();
    const reported = readFileSync(outcomes(runDir), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '));
    expect(reported.every((f) => f[0] === 'lost' && f[3] === 'channel-loss')).toBe(true);
    expect(reported.map((f) => f[1]).sort()).toEqual(missing);
  });
});
