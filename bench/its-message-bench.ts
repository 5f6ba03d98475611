/**
 * `its-messages`: what a standard V2X message costs in the simulated runtime. The packets a run of
 * each ETSI scenario sent (read back from its v2v.pcap) are decoded and encoded again in a loop
 * (the codec's cost per message); and each scenario runs in process with its apps and without
 * them, alternating, so the extra time over the messages sent is a whole message's cost: building
 * it, the channel, the receivers' decoding, v2v.csv, v2v.pcap and the run.mcap record.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runResolvedSimulated } from '../src/api/run-simulated.js';
import { decodeCam, encodeCam } from '../src/core/v2x/codec/cam-pdu.js';
import { decodeCpm, encodeCpm } from '../src/core/v2x/codec/cpm-pdu.js';
import { decodeDenm, encodeDenm } from '../src/core/v2x/codec/denm-pdu.js';
import {
  BTP_PORT_CAM,
  BTP_PORT_CPM,
  BTP_PORT_DENM,
  decodeBroadcast,
  decodeShb,
  encodeBroadcast,
  encodeShb,
} from '../src/core/v2x/networking/geonetworking.js';
import { loadScenario } from '../src/scenario/load-scenario.js';
import { packageRoot } from '../src/util/package-root.js';
import type { BenchRow, BenchSuite } from './main.js';
import { pairedRatio } from './mcap-bench.js';

const SUITE = 'its-messages';
const ROUNDS = 4000;
const PAIRS_WARM_UP = 4;

interface Codec {
  message: string;
  scenario: string;
  port: number;
  /** Decodes a GN packet to its message and encodes it again; returns the new packet. */
  roundTrip(packet: Uint8Array): Uint8Array;
}

const CODECS: Codec[] = [
  {
    message: 'CAM',
    scenario: 'cam-highway',
    port: BTP_PORT_CAM,
    roundTrip: (p) => {
      const shb = decodeShb(p);
      return encodeShb({ ...shb, payload: encodeCam(decodeCam(shb.payload)) });
    },
  },
  {
    message: 'DENM',
    scenario: 'hard-braking-denm',
    port: BTP_PORT_DENM,
    roundTrip: (p) => {
      const gbc = decodeBroadcast(p);
      return encodeBroadcast({ ...gbc, payload: encodeDenm(decodeDenm(gbc.payload)) });
    },
  },
  {
    message: 'CPM',
    scenario: 'cpm-hidden-obstacle',
    port: BTP_PORT_CPM,
    roundTrip: (p) => {
      const shb = decodeShb(p);
      return encodeShb({ ...shb, payload: encodeCpm(decodeCpm(shb.payload)) });
    },
  },
];

/** The GN packets of a pcap's frames (Ethernet header off) whose BTP-B destination port is `port`. */
function packetsOf(pcapFile: string, port: number): Uint8Array[] {
  const buf = readFileSync(pcapFile);
  const packets: Uint8Array[] = [];
  for (let at = 24; at < buf.length; ) {
    const length = buf.readUInt32LE(at + 8);
    const packet = new Uint8Array(buf.subarray(at + 16 + 14, at + 16 + length));
    at += 16 + length;
    const shb = packet[5] >> 4 === 5 && packet[5] % 16 === 0; // header type TSB, sub-type single hop
    if ((shb ? decodeShb(packet) : decodeBroadcast(packet)).btpPort === port) packets.push(packet);
  }
  return packets;
}

export const suite: BenchSuite = {
  name: SUITE,
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-bench-its-'));
    const rows: BenchRow[] = [];
    try {
      for (const codec of CODECS) {
        const scenario = await loadScenario(join(packageRoot(), 'scenarios', `${codec.scenario}.yaml`));
        const { runDir, summary } = await runResolvedSimulated(scenario, { runsDir: join(dir, 'runs'), mcapByDefault: false });
        const packets = packetsOf(join(runDir, 'v2v.pcap'), codec.port);
        if (!packets.length) throw new Error(`${codec.scenario} sent no ${codec.message}`);
        for (const p of packets) codec.roundTrip(p); // compiled before it is timed
        const started = performance.now();
        for (let i = 0; i < ROUNDS; i++) codec.roundTrip(packets[i % packets.length]);
        const perMessageUs = ((performance.now() - started) * 1000) / ROUNDS;
        const sizes = packets.map((p) => p.length);
        rows.push({
          suite: SUITE,
          name: `${codec.message}: decode + encode, GN packet included`,
          value: perMessageUs,
          unit: 'us',
          note: `${packets.length} packets of ${Math.min(...sizes)}-${Math.max(...sizes)} B from ${codec.scenario}`,
        });

        for (const engine of ['ns3', 'builtin'] as const) {
          const load = (extra: string[]) =>
            loadScenario(join(packageRoot(), 'scenarios', `${codec.scenario}.yaml`), { overrides: [`network.engine=${engine}`, ...extra] });
          const [withApps, withoutApps] = [await load([]), await load(['vehicles.*.apps=[]'])];
          const r = await pairedRatio(async (apps) => {
            const t = performance.now();
            await runResolvedSimulated(apps ? withApps : withoutApps, { runsDir: join(dir, 'runs'), mcapByDefault: true });
            return performance.now() - t;
          }, PAIRS_WARM_UP);
          const messages = summary.v2v.sent;
          rows.push({
            suite: SUITE,
            name: `${codec.scenario}, ${engine === 'ns3' ? 'ns-3 lock-step' : 'builtin channel'}: a message sent, whole run (its apps over none)`,
            value: ((r.withMs - r.withoutMs) * 1000) / messages,
            unit: 'us',
            note: `${r.withMs.toFixed(1)} vs ${r.withoutMs.toFixed(1)} ms a run (ratio ${r.ratio.toFixed(2)}), ${messages} messages sent, ${summary.v2v.sent_pairs} (message, receiver) pairs; the apps' own work (clustering a scan, say) included`,
          });
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return rows;
  },
};
