/**
 * Emulation overhead: one-way latency minus the configured channel delay, through the whole path
 * (namespace, veth, bridge, tap, ns-3, and back out), next to the same traffic over a plain veth
 * pair delayed by `tc netem`, in the same run. Needs root and ns-3 (scripts/setup-ns3.sh).
 * The overhead includes the frame's CSMA transmission time (about 12 us for a probe datagram at
 * 100 Mbit/s): that is channel model, not emulation cost, and the breakdown shows it on its own.
 * The breakdown comes from a second pass with the channel program's frame log (docs/hostnet.md).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { breakDownLatency, type LatencyBreakdown, parseFrameLog } from '../src/channel/ns3/frame-log.js';
import { type CommandRunner, createCommandRunner } from '../src/host/exec/command-runner.js';
import { processUndoers } from '../src/host/exec/process-identity.js';
import { Journal } from '../src/host/journal/journal.js';
import { inNetns } from '../src/host/network/execute.js';
import { createDirectOps, type HostNetOps } from '../src/host/network/hostnet-port.js';
import { JournaledHostNet } from '../src/host/network/journaled-ops.js';
import { runTag } from '../src/host/network/names.js';
import { hostNetUndoers } from '../src/host/network/undoers.js';
import { summariseLatency } from '../src/measurement/latency-stats.js';
import { V2V_PORT } from '../src/ports.js';
import { interpolatedQuantile } from '../src/util/percentile.js';
import type { BenchRow, BenchSuite } from './main.js';
import { type ProbeSpec, runProbes } from './testbed/probe-runner.js';
import { startTestbed } from './testbed/testbed.js';

const DELAY_MS = 10;
const SLOT_MS = 25; // one frame on the bus per slot: CSMA holds it for the whole delay
const MESSAGES = 160; // total per vehicle count, warm-up included
const probeJs = fileURLToPath(new URL('./testbed/probe-main.js', import.meta.url));

interface Endpoint {
  netns: string;
  name: string;
  ip: string;
}

/**
 * Sender i sends to sender i+1 in slot i of every round, so at most one frame is in flight. With
 * fewer namespaces than senders (the netem pair), senders alternate between the two namespaces
 * and each binds its own port.
 */
function ringTraffic(endpoints: Endpoint[], senders: number, dir: string): ProbeSpec[] {
  const periodMs = senders * SLOT_MS;
  const count = Math.ceil(MESSAGES / senders);
  const shared = endpoints.length !== senders;
  const who = (i: number) => {
    const e = endpoints[i % endpoints.length];
    return shared ? { ...e, name: `${e.name}${i}`, port: V2V_PORT + i } : { ...e, port: undefined };
  };
  return Array.from({ length: senders }, (_, i) => {
    const self = who(i);
    const peer = who((i + 1) % senders);
    return {
      netns: self.netns,
      name: self.name,
      bind: self.ip,
      port: self.port,
      peers: [{ name: peer.name, address: peer.ip, port: peer.port }],
      count,
      rate: 1000 / periodMs,
      startOffsetMs: i * SLOT_MS,
      csv: join(dir, `${self.name}-${i}.csv`),
      lingerMs: 500,
    };
  });
}

/** The first WARMUP_ROUNDS messages of each sender pay for process start-up and JIT; not counted. */
const WARMUP_ROUNDS = 2;
const counted = (id: string) => Number(id.slice(id.lastIndexOf('-') + 1)) >= WARMUP_ROUNDS;

async function overhead(specs: ProbeSpec[], delayMs: number) {
  const { received, expected } = await runProbes(probeJs, specs);
  const kept = received.filter((r) => counted(r.id));
  return {
    stats: summariseLatency(
      kept.map((r) => ({ ...r, latency_ms: r.latency_ms - delayMs })),
      expected.filter((e) => counted(e.id)),
    ),
    received: kept,
  };
}

/**
 * The ns-3 path. With `frameLog` the channel program also logs every frame's wall-clock timings
 * (a little extra work per frame), so that pass gives the breakdown and the other the figures.
 */
async function emulated(vehicles: number, dir: string, ops: HostNetOps, runner: CommandRunner, journal: Journal, frameLog = false) {
  const logPath = join(dir, 'frames.log');
  const bed = await startTestbed({
    runId: `bench-emu-${vehicles}-${frameLog ? 'f' : 'm'}-${process.pid}`,
    vehicleCount: vehicles,
    network: { delay: DELAY_MS / 1000 },
    runDir: dir,
    journal,
    ops,
    runner,
    controlThird: 20 + vehicles,
    channelArgs: frameLog ? [`--frameLog=${logPath}`] : [],
  });
  try {
    const endpoints = bed.plan.vehicles.map((v, i) => ({ netns: bed.standIns.vehicles[i].netns.name, name: v.name, ip: v.ip }));
    const { stats, received } = await overhead(ringTraffic(endpoints, vehicles, dir), DELAY_MS);
    await bed.channel?.stop(); // closes the frame log
    const nodes = new Map(bed.plan.vehicles.map((v, i) => [v.name, i]));
    const breakdown = frameLog
      ? breakDownLatency(parseFrameLog(readFileSync(logPath, 'utf8')), received, DELAY_MS, (name) => nodes.get(name) ?? -1)
      : [];
    return { stats, lag: bed.channel?.lagSamplesMs() ?? [], breakdown };
  } finally {
    await bed.channel?.stop();
    await bed.teardown();
  }
}

/** Two namespaces joined by one veth pair, each end delayed by netem: the best a kernel can do. */
async function netem(senders: number, dir: string, ops: HostNetOps, runner: CommandRunner, journal: Journal) {
  const runId = `bench-netem-${senders}-${process.pid}`;
  const tag = runTag(runId);
  const net = new JournaledHostNet(journal, ops, `cavsim:${runId}`);
  const ns = [`cvb-${tag}-a`, `cvb-${tag}-b`];
  try {
    for (const n of ns) await net.createNetns(n);
    await net.createVeth({
      hostEnd: `cv-${tag}-na`,
      peer: `cv-${tag}-nb`,
      netns: { name: ns[1] },
      insideName: 'eth1',
      cidr: '10.212.0.2/24',
    });
    await ops.run({
      op: 'move-into-netns',
      name: `cv-${tag}-na`,
      netns: { name: ns[0] },
      newName: 'eth1',
      cidr: '10.212.0.1/24',
      neighbours: [],
    });
    // netem is bench-only scaffolding inside namespaces that die with the bench, so it bypasses the
    // helper. Where it cannot be had (a kernel without sch_netem, no tc) the pair stays undelayed:
    // the same kernel path minus netem's own timer cost, so the comparison only gets stricter.
    let netemUnavailable: string | undefined;
    for (const n of ns) {
      const r = await runner.run(inNetns({ name: n }, ['tc', 'qdisc', 'add', 'dev', 'eth1', 'root', 'netem', 'delay', `${DELAY_MS}ms`]), {
        allowFailure: true,
      });
      if (r.exitCode !== 0) netemUnavailable ??= netemFailure(r.stderr);
    }
    if (netemUnavailable) {
      for (const n of ns) await runner.run(inNetns({ name: n }, ['tc', 'qdisc', 'del', 'dev', 'eth1', 'root']), { allowFailure: true });
    }
    const endpoints = [
      { netns: ns[0], name: 'a', ip: '10.212.0.1' },
      { netns: ns[1], name: 'b', ip: '10.212.0.2' },
    ];
    const { stats } = await overhead(ringTraffic(endpoints, senders, dir), netemUnavailable ? 0 : DELAY_MS);
    return { stats, netemUnavailable };
  } finally {
    await journal.teardown({ ...hostNetUndoers(ops), ...processUndoers });
  }
}

/** Why `tc ... netem` failed, in words a reader of the bench output can act on. */
export function netemFailure(stderr: string): string {
  const text = stderr.trim().split('\n').pop() ?? '';
  if (/qdisc kind is unknown/i.test(text)) return `the kernel has no sch_netem (tc: ${text})`;
  if (/ENOENT|not found/i.test(text) || text === '') return `tc could not run${text ? ` (${text})` : ''}`;
  return `tc: ${text}`;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

const median = (parts: LatencyBreakdown[], key: keyof Omit<LatencyBreakdown, 'id'>) =>
  interpolatedQuantile(
    parts.map((p) => p[key]).sort((a, b) => a - b),
    0.5,
  );

const BREAKDOWN: Array<[keyof Omit<LatencyBreakdown, 'id'>, string]> = [
  ['toSimulator', 'send call to ns-3 tap reader (sender stack, veth, bridge, tap, reader wake-up)'],
  ['model', 'CSMA transmission time at the data rate (channel model)'],
  ['lateDelivery', 'ns-3 delivery later than the model'],
  ['tapWrite', 'write() to the receiver tap (bridge, veth)'],
  ['egress', 'receiver wake-up to its socket callback'],
  ['handOff', 'tap reader to simulator thread (absorbed, not in the sum)'],
];

export const suite: BenchSuite = {
  name: 'emulation',
  needsRoot: true,
  async run() {
    const runner = createCommandRunner();
    const ops = createDirectOps(runner);
    const rows: BenchRow[] = [];
    for (const vehicles of [2, 10]) {
      const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-emu-'));
      const journal = Journal.open(join(dir, 'journal.jsonl'));
      try {
        const emu = await emulated(vehicles, join(dir, 'emu'), ops, runner, journal);
        const { stats: base, netemUnavailable } = await netem(vehicles, join(dir, 'netem'), ops, runner, journal);
        const traced = await emulated(vehicles, join(dir, 'traced'), ops, runner, journal, true);
        const baseline = netemUnavailable ? 'undelayed veth' : 'netem veth';
        if (netemUnavailable && vehicles === 2)
          console.log(`  netem unavailable: ${netemUnavailable}; comparing with the undelayed veth pair`);
        const label = `${vehicles} vehicles, ${DELAY_MS} ms`;
        const lost = emu.stats.lost ? `  lost ${emu.stats.lost}/${emu.stats.count + emu.stats.lost}` : '';
        rows.push(
          {
            suite: 'emulation',
            name: `${label}: overhead p50 (ns-3 path)`,
            value: round(emu.stats.p50_ms),
            unit: 'ms',
            target: '<= 0.3',
            note: `n=${emu.stats.count}${lost}`,
          },
          { suite: 'emulation', name: `${label}: overhead p99 (ns-3 path)`, value: round(emu.stats.p99_ms), unit: 'ms', target: '<= 1' },
          {
            suite: 'emulation',
            name: `${label}: overhead p50 (${baseline})`,
            value: round(base.p50_ms),
            unit: 'ms',
            note: `n=${base.count}${netemUnavailable ? `  netem unavailable: ${netemUnavailable}` : ''}`,
          },
          { suite: 'emulation', name: `${label}: overhead p99 (${baseline})`, value: round(base.p99_ms), unit: 'ms' },
          { suite: 'emulation', name: `${label}: p50 ratio ns-3 / veth`, value: round(emu.stats.p50_ms / base.p50_ms), unit: 'x' },
          { suite: 'emulation', name: `${label}: p99 ratio ns-3 / veth`, value: round(emu.stats.p99_ms / base.p99_ms), unit: 'x' },
          { suite: 'emulation', name: `${label}: ns-3 realtime lag max`, value: round(Math.max(0, ...emu.lag)), unit: 'ms' },
          {
            suite: 'emulation',
            name: `${label}: overhead p50 (ns-3 path, frame-log pass)`,
            value: round(median(traced.breakdown, 'total')),
            unit: 'ms',
            note: `n=${traced.breakdown.length}; its p50 parts:`,
          },
          ...BREAKDOWN.map(([key, what]) => ({
            suite: 'emulation',
            name: `${label}:   ${key}`,
            value: round(median(traced.breakdown, key)),
            unit: 'ms',
            note: what,
          })),
        );
      } finally {
        await journal.teardown({ ...hostNetUndoers(ops), ...processUndoers });
        rmSync(dir, { recursive: true, force: true });
      }
    }
    return rows;
  },
};
