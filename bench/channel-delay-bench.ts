/**
 * Precision of the emulated channel's delay: one-way latency measured through the whole path
 * (namespace, veth, bridge, tap, ns-3 in real time, and back out) minus the configured delay, at
 * 10, 20, 100 and 300 ms, on the `latency` and `csma` channels. Two stand-in vehicles each send a
 * beacon-like datagram every 100 ms, so ns-3 sleeps idle between frames as it does in a run.
 * `BENCH_OLD_CHANNEL=<dir with channel-tap.cc and lib/>` also runs that program, side by side.
 * Needs root and ns-3 (scripts/setup-ns3.sh).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { breakDownLatency, parseFrameLog } from '../src/channel/ns3/frame-log.js';
import { type CommandRunner, createCommandRunner } from '../src/host/exec/command-runner.js';
import { processUndoers } from '../src/host/exec/process-identity.js';
import { Journal } from '../src/host/journal/journal.js';
import { createDirectOps, type HostNetOps } from '../src/host/network/hostnet-port.js';
import { hostNetUndoers } from '../src/host/network/undoers.js';
import { summariseLatency } from '../src/measurement/latency-stats.js';
import { interpolatedQuantile } from '../src/util/percentile.js';
import type { BenchRow, BenchSuite } from './main.js';
import { type ProbeSpec, runProbes } from './testbed/probe-runner.js';
import { startTestbed } from './testbed/testbed.js';

const DELAYS_MS = [10, 20, 100, 300];
const PERIOD_MS = 100;
const WARMUP = 3;
const probeJs = fileURLToPath(new URL('./testbed/probe-main.js', import.meta.url));

type Kind = 'latency' | 'csma';

/** CSMA holds the bus for the whole delay, so its senders take turns a delay apart; `latency` does not. */
function beaconTraffic(
  kind: Kind,
  delayMs: number,
  endpoints: Array<{ netns: string; name: string; ip: string }>,
  dir: string,
): ProbeSpec[] {
  const period = kind === 'csma' ? Math.max(PERIOD_MS, 2 * (delayMs + 15)) : PERIOD_MS;
  const count = WARMUP + Math.max(20, Math.ceil(6000 / period));
  return endpoints.map((self, i) => {
    const peer = endpoints[(i + 1) % endpoints.length];
    return {
      netns: self.netns,
      name: self.name,
      bind: self.ip,
      peers: [{ name: peer.name, address: peer.ip }],
      count,
      rate: 1000 / period,
      startOffsetMs: (i * period) / endpoints.length,
      csv: join(dir, `${self.name}.csv`),
      lingerMs: delayMs + 500,
    };
  });
}

async function excessLatency(
  kind: Kind,
  delayMs: number,
  source: string | undefined,
  dir: string,
  ops: HostNetOps,
  runner: CommandRunner,
  journal: Journal,
) {
  const bed = await startTestbed({
    runId: `bench-dly-${kind}-${delayMs}-${source ? 'o' : 'n'}-${process.pid}`,
    vehicleCount: 2,
    network: { channel: kind, delay: delayMs / 1000 },
    runDir: dir,
    journal,
    ops,
    runner,
    channelSource: source,
    channelArgs: [`--frameLog=${join(dir, 'frames.log')}`],
    controlThird: 60,
  });
  try {
    const endpoints = bed.plan.vehicles.map((v, i) => ({ netns: bed.standIns.vehicles[i].netns.name, name: v.name, ip: v.ip }));
    const { received, expected } = await runProbes(probeJs, beaconTraffic(kind, delayMs, endpoints, dir));
    await bed.channel?.stop(); // closes the frame log
    const counted = (id: string) => Number(id.slice(id.lastIndexOf('-') + 1)) >= WARMUP;
    const kept = received.filter((r) => counted(r.id));
    const nodes = new Map(bed.plan.vehicles.map((v, i) => [v.name, i]));
    const parts = breakDownLatency(
      parseFrameLog(readFileSync(join(dir, 'frames.log'), 'utf8')),
      kept,
      delayMs,
      (name) => nodes.get(name) ?? -1,
    );
    const sorted = (key: 'toSimulator' | 'lateDelivery' | 'tapWrite' | 'egress') => parts.map((p) => p[key]).sort((a, b) => a - b);
    const late = sorted('lateDelivery');
    const p50Of = (key: 'toSimulator' | 'tapWrite' | 'egress') => interpolatedQuantile(sorted(key), 0.5);
    return {
      endToEnd: summariseLatency(
        kept.map((r) => ({ ...r, latency_ms: r.latency_ms - delayMs })),
        expected.filter((e) => counted(e.id)),
      ),
      lateP50: interpolatedQuantile(late, 0.5),
      lateP99: interpolatedQuantile(late, 0.99),
      hostP50: { toSimulator: p50Of('toSimulator'), tapWrite: p50Of('tapWrite'), egress: p50Of('egress') },
    };
  } finally {
    await bed.channel?.stop();
    await bed.teardown();
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export const suite: BenchSuite = {
  name: 'channel-delay',
  needsRoot: true,
  async run() {
    const runner = createCommandRunner();
    const ops = createDirectOps(runner);
    const old = process.env.BENCH_OLD_CHANNEL;
    const builds: Array<[string, string | undefined]> = [
      ['this build', undefined],
      ...(old ? [['old build', join(old, 'channel-tap.cc')] as [string, string]] : []),
    ];
    const rows: BenchRow[] = [];
    for (const kind of ['latency', 'csma'] as Kind[]) {
      for (const delayMs of DELAYS_MS) {
        const p50: number[] = [];
        for (const [build, source] of builds) {
          const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-delay-'));
          const journal = Journal.open(join(dir, 'journal.jsonl'));
          try {
            const { endToEnd: s, lateP50, lateP99, hostP50 } = await excessLatency(kind, delayMs, source, dir, ops, runner, journal);
            p50.push(s.p50_ms);
            const label = `${kind} ${delayMs} ms, ${build}:`;
            const lost = s.lost ? `, lost ${s.lost}` : '';
            rows.push(
              {
                suite: 'channel-delay',
                name: `${label} ns-3 delivery late p50`,
                value: round(lateP50),
                unit: 'ms',
                target: '<= 0.3',
                note: "after the model's delivery time",
              },
              { suite: 'channel-delay', name: `${label} ns-3 delivery late p99`, value: round(lateP99), unit: 'ms', target: '<= 0.3' },
              {
                suite: 'channel-delay',
                name: `${label} end to end - configured p50`,
                value: round(s.p50_ms),
                unit: 'ms',
                note: `n=${s.count}${lost}; includes both hosts' stacks`,
              },
              { suite: 'channel-delay', name: `${label} end to end - configured p99`, value: round(s.p99_ms), unit: 'ms' },
              ...Object.entries(hostP50).map(([part, v]) => ({
                suite: 'channel-delay',
                name: `${label}   host part ${part} p50`,
                value: round(v),
                unit: 'ms',
              })),
            );
          } finally {
            await journal.teardown({ ...hostNetUndoers(ops), ...processUndoers });
            rmSync(dir, { recursive: true, force: true });
          }
        }
        if (p50.length === 2)
          rows.push({
            suite: 'channel-delay',
            name: `${kind} ${delayMs} ms: p50 excess this / old`,
            value: round(p50[0] / p50[1]),
            unit: 'x',
          });
      }
    }
    return rows;
  },
};
