/**
 * `npm run bench -- emulated-delay`: is an emulated run's V2V delay true to network.delay? Two
 * parked cars beacon 200 B at 20 Hz through the whole emulated path (vehicle program, container
 * stack, veth, bridge, tap, ns-3 in real time, and back out), on `latency` and `csma` at 10, 20,
 * 100 and 300 ms; then 2 Mbit/s offered on a 2 Mbit/s `latency` channel at 20 ms. Per case: p50,
 * p99 and min of (measured one-way delay - setting) from v2v.csv, and the run's stack-share
 * calibration (timing.stack_calibration). `latency`/`csma` at 10 ms also run uncalibrated, for
 * the before/after. `latency` at 100 ms, and at 105 ms (whose frames leave ns-3 mid-step, not as
 * every car wakes for the step's odometry), capture the taps and say where the time went: the
 * sender's share, ns-3's over the delay it applied, the receiver's (bench/delay-split.ts). The
 * machine's timer baseline and load average come with the figures. Needs root, Docker, ns-3 and
 * dumpcap/tshark.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulatedDeps } from '../src/api/run-emulated.js';
import type { RunEvent } from '../src/run/events.js';
import { runEmulated } from '../src/runtime/emulated/run-emulated.js';
import type { StackCalibration } from '../src/runtime/emulated/stack-share.js';
import { loadScenario } from '../src/scenario/load-scenario.js';
import { packageRoot } from '../src/util/package-root.js';
import { interpolatedQuantile } from '../src/util/percentile.js';
import { shareQuantiles, splitDelay, type TapFrame } from './delay-split.js';
import type { BenchRow, BenchSuite } from './main.js';
import { captureTaps, type TapCapture } from './testbed/tap-capture.js';
import { measureTimerBaseline } from './timer-baseline.js';

const SUITE = 'emulated-delay';
const DELAYS_MS = [10, 20, 100, 300];
/** Messages sent before this [s] are left out: the first of each car pays for warming up. */
const SETTLE_S = 0.5;
/** IPv4 and UDP headers: what ns-3's device serialises beyond the datagram (TapBridge strips Ethernet). */
const IP_UDP_BYTES = 28;

interface DelayCase {
  label: string;
  channel: 'latency' | 'csma';
  delayMs: number;
  rateHz: number;
  sizeBytes: number;
  dataRate: string;
  durationS: number;
  calibrate: boolean;
  /** bit/s: the serialisation of each frame at this rate is reported as taken out too. */
  serialisedAt?: number;
  /** Capture the taps and say where each frame's time went (sender, ns-3, receiver). */
  split?: boolean;
  /** The cars run Node's vehicle program, not the light-car one (docs/containers.md, "Light cars"). */
  nodeCars?: boolean;
}

/**
 * CSMA holds the bus for the whole delay after each frame, so at 100 and 300 ms two cars at 20 Hz
 * saturate it (docs/scenario.md): its beacons are slowed until the cars' frames cannot meet on the
 * bus, which keeps the load light there too.
 */
function lightLoadCase(channel: 'latency' | 'csma', delayMs: number, calibrate = true): DelayCase {
  const rateHz = channel === 'csma' ? Math.min(20, Math.floor(10_000 / (2 * (delayMs + 15))) / 10) : 20;
  return {
    label: `${channel} ${delayMs} ms, ${rateHz} Hz${calibrate ? '' : ', uncalibrated'}`,
    channel,
    delayMs,
    rateHz,
    sizeBytes: 200,
    dataRate: '100Mbps',
    durationS: Math.max(10, Math.ceil(60 / (2 * rateHz))),
    calibrate,
  };
}

function scenarioYaml(c: DelayCase): string {
  const car = (name: string, x: number) =>
    `  - name: ${name}\n    start: { x: ${x}, y: -1, yaw: 0, speed: 0 }\n    apps: [ { type: beacon, rate: ${c.rateHz}Hz, size: ${c.sizeBytes}B } ]`;
  return [
    `name: bench-delay-${c.channel}-${c.delayMs}`,
    `map: ${join(packageRoot(), 'maps/corridor.yaml')}`,
    `duration: ${c.durationS}s`,
    'seed: 1',
    'network:',
    `  channel: ${c.channel}`,
    `  delay: ${c.delayMs}ms`,
    `  dataRate: ${c.dataRate}`,
    'vehicles:',
    car('car0', 0),
    car('car1', -10),
    '',
  ].join('\n');
}

/** (measured - setting [- serialisation]) of every delivered message sent after the warm-up [ms]. */
export function excessesMs(v2vCsv: string, delayMs: number, serialisedAt?: number): number[] {
  const [header, ...lines] = v2vCsv.trim().split('\n');
  const col = Object.fromEntries(header.split(',').map((name, i) => [name, i]));
  return lines
    .map((line) => line.split(','))
    .filter((f) => f[col.outcome] === 'delivered' && Number(f[col.sent_s]) >= SETTLE_S)
    .map((f) => {
      const serialisation = serialisedAt ? ((Number(f[col.size_bytes]) + IP_UDP_BYTES) * 8 * 1000) / serialisedAt : 0;
      return Number(f[col.latency_ms]) - delayMs - serialisation;
    });
}

const round = (x: number) => Math.round(x * 1000) / 1000;
const load = () => loadavg()[0].toFixed(2);

async function runCase(c: DelayCase, dir: string): Promise<BenchRow[]> {
  const file = join(dir, `${c.channel}-${c.delayMs}-${c.calibrate}${c.nodeCars ? '-node' : ''}.yaml`);
  writeFileSync(file, scenarioYaml(c));
  const scenario = await loadScenario(file);
  const loadBefore = load();
  let capture: TapCapture | undefined;
  const events = {
    emit(e: RunEvent) {
      const taps = e.type === 'phase' && e.phase === 'channel' ? /--taps=(\S+)/.exec(e.detail ?? '')?.[1] : undefined;
      if (c.split && taps && !capture)
        capture = captureTaps(taps.split(','), join(dir, `${c.channel}-${c.delayMs}${c.nodeCars ? '-node' : ''}.pcapng`));
    },
  };
  const { summary, runDir } = await runEmulated(scenario, createEmulatedDeps(), {
    runsDir: join(dir, 'runs'),
    calibrateDelay: c.calibrate,
    lightCars: !c.nodeCars,
    events,
  });
  const frames = await capture?.stop();
  if (summary.status === 'failed')
    return [{ suite: SUITE, name: `${c.label}: run failed`, value: Number.NaN, unit: '', note: summary.reason }];
  const excess = excessesMs(readFileSync(join(runDir, 'v2v.csv'), 'utf8'), c.delayMs, c.serialisedAt).sort((a, b) => a - b);
  const cal = (summary.timing as { stack_calibration?: StackCalibration } | undefined)?.stack_calibration;
  const q = (p: number) => round(interpolatedQuantile(excess, p));
  const minus = c.serialisedAt ? ' - serialisation' : '';
  const note = `n=${excess.length}, ${summary.status}, load ${loadBefore}->${load()}`;
  const rows: BenchRow[] = [
    {
      suite: SUITE,
      name: `${c.label}: measured - setting${minus} p50`,
      value: q(0.5),
      unit: 'ms',
      target: c.serialisedAt ? '|x| <= 1' : '|x| <= 0.3',
      note,
    },
    {
      suite: SUITE,
      name: `${c.label}: measured - setting${minus} p99`,
      value: q(0.99),
      unit: 'ms',
      target: c.serialisedAt ? undefined : '<= 2',
    },
    { suite: SUITE, name: `${c.label}: measured - setting${minus} min`, value: q(0), unit: 'ms' },
  ];
  if (cal?.stack_share_p50_ms != null)
    rows.push({
      suite: SUITE,
      name: `${c.label}: stack share p50 (calibration)`,
      value: cal.stack_share_p50_ms,
      unit: 'ms',
      note: `spread ${cal.spread_ms} (p10 ${cal.stack_share_p10_ms}, p90 ${cal.stack_share_p90_ms}), ns-3 applied ${cal.applied_delay_ms} ms`,
    });
  else if (cal?.not_calibrated)
    rows.push({ suite: SUITE, name: `${c.label}: not calibrated`, value: Number.NaN, unit: '', note: cal.not_calibrated });
  if (frames && cal) rows.push(...splitRows(c, frames, runDir, summary.timing, cal.applied_delay_ms));
  return rows;
}

export const suite: BenchSuite = {
  name: SUITE,
  needsRoot: true,
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-delay-'));
    try {
      // the first run may build images and compile ns-3: measure afterwards
      await runCase({ ...lightLoadCase('latency', 10), durationS: 2 }, dir);
      const baseline = await measureTimerBaseline(createEmulatedDeps().docker);
      const rows: BenchRow[] = [
        {
          suite: SUITE,
          name: 'timer baseline: lateness p99, empty 10 ms-step loop in a container',
          value: baseline.p99_ms,
          unit: 'ms',
          note: `p50 ${baseline.p50_ms.toFixed(3)}, max ${baseline.max_ms.toFixed(3)}; load ${load()}`,
        },
      ];
      const cases: DelayCase[] = [
        ...(['latency', 'csma'] as const).flatMap((kind) =>
          DELAYS_MS.map((d) => ({ ...lightLoadCase(kind, d), split: kind === 'latency' && d === 100 })),
        ),
        // 5 ms off the 10 ms physics step: frames leave ns-3 mid-step, not as every car wakes
        { ...lightLoadCase('latency', 105), split: true },
        // the same cars on Node's vehicle program, side by side with the light-car one above
        { ...lightLoadCase('latency', 100), label: 'latency 100 ms, 20 Hz, Node cars', split: true, nodeCars: true },
        {
          label: 'latency 20 ms, 2 Mbit/s offered on 2 Mbit/s (100 Hz x 1250 B per car)',
          channel: 'latency',
          delayMs: 20,
          rateHz: 100,
          sizeBytes: 1250,
          dataRate: '2Mbps',
          durationS: 10,
          calibrate: true,
          serialisedAt: 2e6,
        },
        lightLoadCase('latency', 10, false),
        lightLoadCase('csma', 10, false),
      ];
      for (const c of cases) rows.push(...(await runCase(c, dir)));
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** Rows of where the run's frames spent their time (bench/delay-split.ts), from the taps' capture. */
function splitRows(c: DelayCase, frames: TapFrame[], runDir: string, timing: unknown, appliedMs: number): BenchRow[] {
  const t0 = (timing as { t0_epoch_ns?: string } | undefined)?.t0_epoch_ns;
  if (t0 === undefined) return [];
  const plan = JSON.parse(readFileSync(join(runDir, 'plan.json'), 'utf8')) as { hostNet: { vehicles: { name: string; ip: string }[] } };
  const ipOf = new Map(plan.hostNet.vehicles.map((v) => [v.name, v.ip]));
  const [header, ...lines] = readFileSync(join(runDir, 'v2v.csv'), 'utf8').trim().split('\n');
  const col = Object.fromEntries(header.split(',').map((name, i) => [name, i]));
  const received = new Map<string, bigint>();
  for (const f of lines.map((line) => line.split(',')))
    if (f[col.outcome] === 'delivered' && Number(f[col.sent_s]) >= SETTLE_S)
      received.set(`${f[col.id]}>${ipOf.get(f[col.to])}`, BigInt(t0) + BigInt(Math.round(Number(f[col.received_s]) * 1e9)));
  const runIds = new Set([...received.keys()].map((key) => key.split('>')[0]));
  const split = splitDelay({ frames, appliedMs, received, t0Ns: BigInt(t0), stepNs: 10_000_000n, include: (id) => runIds.has(id) });
  const rows: BenchRow[] = [];
  for (const [name, xs] of [
    ['sender program -> its tap', split.senderToTapMs],
    ['ns-3 over the delay it applied', split.ns3OverAppliedMs],
    ['receiving tap -> receiving program', split.tapToAppMs],
  ] as const) {
    const q = shareQuantiles(xs);
    if (q) rows.push({ suite: SUITE, name: `${c.label}: ${name} p50`, value: q.p50, unit: 'ms', note: `p99 ${q.p99}, n=${q.n}` });
  }
  const early = split.stepPhaseMs.filter((ph) => ph < 2).length;
  if (split.stepPhaseMs.length)
    rows.push({
      suite: SUITE,
      name: `${c.label}: frames out of ns-3 in a physics step's first 2 ms`,
      value: round((100 * early) / split.stepPhaseMs.length),
      unit: '%',
      note: "when every car wakes for the step's odometry",
    });
  return rows;
}
