/**
 * `sidelink`: LTE-V2X Mode 4 (network.channel: lte-v2x) and NR-V2X Mode 2 (nr-v2x, its defaults:
 * numerology 1, SPS) against the builtin 802.11p engine on the same scenario, as whole `cavsim up --runtime sim` commands side by side in one run: 100 cars on a
 * 2 km road of three lanes (the `traffic:` block) at 25 m/s, beaconing 190 B at 10 Hz, on the
 * published highway radio (winner-b1, 20 dBm, 3 dB shadowing, -95 dBm noise), fleet recording.
 * nr-v2x with the same power and noise density (-92 dBm in its 20 MHz).
 * (a) lte-v2x and nr-v2x, (b) wifi-80211p, (c) their ratios; (d) the channel models alone, driven in process
 * without the world for 20 simulated seconds, to tell the channel's cost from the runtime's. BENCH_SIDELINK_SECONDS sets the
 * simulated seconds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ChannelFrame, V2VChannel } from '../src/channel/frames.js';
import { OutcomeTally } from '../src/channel/outcome-tally.js';
import { LteV2xChannel, NrV2xChannel } from '../src/channel/radio/sidelink/lte-v2x-channel.js';
import { Wifi80211pChannel } from '../src/channel/radio/wifi-80211p/wifi-80211p-channel.js';
import { createCommandRunner } from '../src/host/exec/command-runner.js';
import { NR_V2X_DEFAULTS } from '../src/scenario/resolve-sidelink.js';
import type { LteV2xNetwork, NrV2xNetwork, WifiNetwork } from '../src/scenario/resolved.js';
import { packageRoot } from '../src/util/package-root.js';
import type { BenchRow, BenchSuite } from './main.js';

const commands = createCommandRunner();
const SUITE = 'sidelink';
const CARS = 100;
const SECONDS = Number(process.env.BENCH_SIDELINK_SECONDS ?? 5);
const RADIO = 'propagation: winner-b1, txPower: 20dBm, shadowing: 3dB, noiseFloor: -95dBm';

type Channel = 'lte-v2x' | 'nr-v2x' | 'wifi-80211p';

const scenario = (channel: Channel, seconds: number) => `name: sidelink-${channel}
duration: ${seconds}s
seed: 1
network: { channel: ${channel}, engine: builtin, ${channel === 'nr-v2x' ? RADIO.replace(', noiseFloor: -95dBm', '') : RADIO} }
record: { v2v: false, mcap: false }
traffic:
  road: { length: 2000m, lanes: 3 }
  density: ${CARS / 2}/km
  speed: 25m/s
  apps: [ { type: beacon, rate: 10Hz, size: 190B } ]
`;

interface Measured {
  realTime: number;
  wall: number;
  delivery: number;
}

async function runScenario(path: string, runsDir: string): Promise<Measured> {
  const cli = join(packageRoot(), 'dist/cli/main.js');
  const { stdout, exitCode } = await commands.run(
    [process.execPath, cli, 'up', '--runtime', 'sim', '--json', '--runs-dir', runsDir, path],
    {
      allowFailure: true,
    },
  );
  if (exitCode !== 0) throw new Error(`${path}: exit status ${exitCode}`);
  const summary = JSON.parse(stdout) as {
    status: string;
    reason?: string;
    sim_time_s: number;
    wall_time_s: number;
    v2v?: { delivery_ratio: number };
  };
  if (summary.status !== 'completed') throw new Error(`${path}: run ${summary.status}: ${summary.reason}`);
  return { realTime: summary.sim_time_s / summary.wall_time_s, wall: summary.wall_time_s, delivery: summary.v2v?.delivery_ratio ?? 0 };
}

const RADIO_KEYS = { txPower: 20, propagation: 'winner-b1', obstacles: 'none', antennaHeight: 1.5, shadowing: 3, noiseFloor: -95 } as const;
const LTE: LteV2xNetwork = { channel: 'lte-v2x', ...RADIO_KEYS, noiseFigure: 9, subchannels: 4, rri: 0.1, mcs: 9, keepProbability: 0 };
const NR: NrV2xNetwork = { channel: 'nr-v2x', ...NR_V2X_DEFAULTS, ...RADIO_KEYS, noiseFloor: -92 };
const WIFI: WifiNetwork = { channel: 'wifi-80211p', ...RADIO_KEYS, noiseFigure: 7, rate: 6e6 };

/** Simulated seconds the channels alone run: long enough that the JIT's warm-up does not count. */
const ALONE_SECONDS = 20;

/** The channel alone: 100 cars parked 20 m apart, each sending 190 B at 10 Hz at its own phase; simulated seconds per wall second. */
function channelAlone(channel: Channel): number {
  const positions = Array.from({ length: CARS }, (_, i) => ({ x: i * 20, y: (i % 3) * 3.5 }));
  const names = positions.map((_, i) => `car${i}`);
  const opts = { names, positions: () => positions, seed: 1, tally: { outcomes: new OutcomeTally(2000), listeners: new Set<string>() } };
  const model: V2VChannel<number> =
    channel === 'lte-v2x'
      ? new LteV2xChannel<number>({ network: LTE, ...opts })
      : channel === 'nr-v2x'
        ? new NrV2xChannel<number>({ network: NR, ...opts })
        : new Wifi80211pChannel<number>({ network: WIFI, ...opts });
  const to = names.map((_, i) => names.filter((__, j) => j !== i));
  const started = performance.now();
  for (let tick = 0; tick * 0.01 < ALONE_SECONDS; tick++) {
    const t = tick * 0.01;
    for (let i = tick % 10; i < CARS; i += 10) {
      const frame: ChannelFrame<number> = { payload: i, from: names[i], to: to[i], broadcast: true, sizeBytes: 190 };
      model.send(frame, t + ((i * 0.37) % 1) * 0.01);
    }
    model.deliverDue(t);
    model.takeChannelBusy?.(t);
  }
  return ALONE_SECONDS / ((performance.now() - started) / 1000);
}

export const suite: BenchSuite = {
  name: SUITE,
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-sidelink-'));
    const runs = join(dir, 'runs');
    const file = (name: string, yaml: string) => {
      const path = join(dir, `${name}.yaml`);
      writeFileSync(path, yaml);
      return path;
    };
    const note = (m: Measured) => `${SECONDS} s simulated in ${m.wall.toFixed(2)} s; delivery ratio ${m.delivery.toFixed(3)}`;
    try {
      await runScenario(file('warm', scenario('lte-v2x', 0.2)), runs);
      const lte = await runScenario(file('lte-v2x', scenario('lte-v2x', SECONDS)), runs);
      const nr = await runScenario(file('nr-v2x', scenario('nr-v2x', SECONDS)), runs);
      const wifi = await runScenario(file('wifi-80211p', scenario('wifi-80211p', SECONDS)), runs);
      const lteAlone = channelAlone('lte-v2x');
      const nrAlone = channelAlone('nr-v2x');
      const wifiAlone = channelAlone('wifi-80211p');
      const row = (name: string, value: number, unit: string, extra: Partial<BenchRow> = {}): BenchRow => ({
        suite: SUITE,
        name,
        value,
        unit,
        ...extra,
      });
      return [
        row('(a) 100 cars, 10 Hz, 190 B, lte-v2x builtin (x real time)', lte.realTime, 'x', { target: '>= 5x', note: note(lte) }),
        row('(a) the same on nr-v2x builtin (x real time)', nr.realTime, 'x', { note: note(nr) }),
        row('(b) the same on wifi-80211p builtin (x real time)', wifi.realTime, 'x', { note: note(wifi) }),
        row('(c) lte-v2x over wifi-80211p, whole run', lte.realTime / wifi.realTime, 'ratio'),
        row('(c) nr-v2x over wifi-80211p, whole run', nr.realTime / wifi.realTime, 'ratio'),
        row('(d) lte-v2x channel alone (x real time)', lteAlone, 'x'),
        row('(d) nr-v2x channel alone (x real time)', nrAlone, 'x'),
        row('(d) wifi-80211p channel alone (x real time)', wifiAlone, 'x'),
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
