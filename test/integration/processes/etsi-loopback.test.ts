import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResolvedSimulated } from '../../../src/api/run-simulated.js';
import type { Odometry } from '../../../src/core/control/vehicle-context.js';
import { decodeCam } from '../../../src/core/v2x/codec/cam-pdu.js';
import { decodeDenm } from '../../../src/core/v2x/codec/denm-pdu.js';
import {
  BTP_PORT_CAM,
  BTP_PORT_DENM,
  decodeBroadcast,
  decodeShb,
  GN_ETHERTYPE,
  gnSourceOf,
} from '../../../src/core/v2x/networking/geonetworking.js';
import { stationIdOf } from '../../../src/core/v2x/networking/station-id.js';
import { BTP_PORT_CAVSIM_JSON } from '../../../src/measurement/v2v-capture.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import type { ResolvedScenario } from '../../../src/scenario/resolved.js';
import { bodySizes, createVehicleApps } from '../../../src/world/create-apps.js';
import { stepSchedule } from '../../../src/world/step-schedule.js';
import { VehicleAgent } from '../../../src/world/vehicle-agent.js';
import { buildEntryPoints, type LoopbackRun, repoRoot, runOnLoopback } from './support.js';

/**
 * The ETSI apps in the emulated runtime's programs (simulator and vehicles as host processes on
 * loopback, V2V over real UDP sockets) against `--runtime sim`: the GN packets the apps build go
 * on the wire and into v2v.pcap, and the CAM/DENM timeline (the step of each send, per car,
 * message and DENM cause) is the simulated runtime's, to the step.
 */

interface PcapFrame {
  /** Record time [s since the run's start]. */
  t: number;
  frame: Buffer;
}

/** pcap (microsecond, little-endian) records; times relative to the ITS epoch cavsim stamps run time 0 at. */
function readPcap(file: string): PcapFrame[] {
  const buf = readFileSync(file);
  expect(buf.readUInt32LE(0)).toBe(0xa1b2c3d4);
  expect(buf.readUInt32LE(20)).toBe(1);
  const frames: PcapFrame[] = [];
  for (let at = 24; at < buf.length; ) {
    const seconds = buf.readUInt32LE(at);
    const micros = buf.readUInt32LE(at + 4);
    const length = buf.readUInt32LE(at + 8);
    frames.push({ t: seconds - 1072915200 + micros / 1e6, frame: buf.subarray(at + 16, at + 16 + length) });
    at += 16 + length;
  }
  return frames;
}

interface Sent {
  car: string;
  /** The step whose time the app built the packet at (its GN source position vector's timestamp). */
  step: number;
  type: 'cam' | 'denm' | 'other';
  /** DENM: cause/sub-cause, and `cancel` for a cancellation. */
  detail: string;
  bytes: number;
  t: number;
}

/** Every frame of a v2v.pcap as (car, step, message), decoded from its GN packet. */
function sentFrames(file: string, scenario: ResolvedScenario): Sent[] {
  const byStation = new Map(scenario.vehicles.map((v) => [stationIdOf(v.name), v.name]));
  const stepMs = scenario.physics.timestep * 1000;
  return readPcap(file).map(({ t, frame }) => {
    expect(frame.readUInt16BE(12)).toBe(GN_ETHERTYPE);
    const packet = new Uint8Array(frame.subarray(14));
    const source = gnSourceOf(packet);
    expect(source, 'a GN packet with a source').toBeDefined();
    const car = byStation.get(new DataView(source!.mac.buffer, source!.mac.byteOffset, 6).getUint32(2)) ?? '?';
    expect(car).toBe(frameSource(frame));
    return { car, step: source!.timestampMs / stepMs, ...describePacket(packet), bytes: packet.length, t };
  });
}

/** A GN packet's message: a CAM (with its generationDeltaTime) or a DENM (cause/sub-cause, cancellation). */
function describePacket(packet: Uint8Array): Pick<Sent, 'type' | 'detail'> {
  if (packet[5] >> 4 === 5 && packet[5] % 16 === 0) {
    const shb = decodeShb(packet);
    return shb.btpPort === BTP_PORT_CAM
      ? { type: 'cam', detail: `gdt ${decodeCam(shb.payload).generationDeltaTime}` }
      : { type: 'other', detail: '' };
  }
  const gbc = decodeBroadcast(packet);
  if (gbc.btpPort !== BTP_PORT_DENM) return { type: 'other', detail: '' };
  const denm = decodeDenm(gbc.payload);
  return {
    type: 'denm',
    detail: `${denm.situation?.eventType.causeCode}/${denm.situation?.eventType.subCauseCode}${denm.management.termination !== undefined ? ' cancel' : ''}`,
  };
}

/**
 * What the cars' apps send when they tick in virtual time (at each control step, at that step's
 * time) on the trajectory a run folder's vehicles.csv recorded: the timeline the apps owe that
 * trajectory if they decide on the step's time, whatever the wall clock did.
 */
function replay(runDir: string, scenario: ResolvedScenario): Sent[] {
  const dt = scenario.physics.timestep;
  const schedule = stepSchedule(scenario);
  const states = rows(runDir, 'vehicles.csv');
  const sent: Sent[] = [];
  for (const spec of scenario.vehicles) {
    const mine = states.filter((r) => r.vehicle === spec.name);
    let step = 0;
    let own: Odometry | undefined;
    const agent = new VehicleAgent(spec.name, createVehicleApps(spec, bodySizes(scenario), scenario.geoReference), {
      now: () => step * dt,
      own: () => own,
      others: () => new Map(),
      scan: () => undefined,
      publishDrive: () => {},
      transmit: (msg) => {
        if (msg.packet) sent.push({ car: spec.name, step, ...describePacket(msg.packet), bytes: msg.packet.length, t: step * dt });
      },
      log: () => {},
    });
    for (const r of mine) {
      step = Math.round(Number(r.t_s) / dt);
      if (step % schedule.controlPeriod(spec) !== 0 || r.collided === '1') continue;
      own = {
        t: step * dt,
        x: Number(r.x_m),
        y: Number(r.y_m),
        yaw: Number(r.yaw_rad),
        v: Number(r.speed_mps),
        steer: Number(r.steer_rad),
        yawRate: Number(r.yaw_rate_radps),
      };
      agent.tick();
    }
  }
  return sent;
}

/**
 * The first step at which a car (or any car) differs between the two runs in vehicles.csv (state
 * or the drive command physics applied), and whether a drive command differed there; undefined
 * when it never does.
 */
function firstDivergence(
  simDir: string,
  emuDir: string,
  dt: number,
  car?: string,
): { step: number; commandDiffered: boolean; rows: string } | undefined {
  const a = rows(simDir, 'vehicles.csv').filter((r) => car === undefined || r.vehicle === car);
  const b = rows(emuDir, 'vehicles.csv');
  const key = (r: Row) => `${r.t_s} ${r.vehicle}`;
  const other = new Map(b.map((r) => [key(r), r]));
  const fields = ['x_m', 'y_m', 'yaw_rad', 'speed_mps', 'steer_rad', 'yaw_rate_radps', 'cmd_speed_mps', 'cmd_steer_rad'];
  for (const r of a) {
    const o = other.get(key(r));
    if (!o) continue;
    const differs = fields.filter((f) => r[f] !== o[f]);
    if (!differs.length) continue;
    const step = Math.round(Number(r.t_s) / dt);
    return { step, commandDiffered: differs.some((f) => f.startsWith('cmd_')), rows: `${JSON.stringify(r)} vs ${JSON.stringify(o)}` };
  }
  return undefined;
}

/** The car whose station MAC (02:00 and its station ID) a frame's Ethernet source is. */
const frameSource = (frame: Buffer): string => stationNames.get(frame.readUInt32BE(8)) ?? '?';
const stationNames = new Map<number, string>();

const timeline = (frames: readonly Sent[]) =>
  frames
    .filter((f) => f.type !== 'other')
    .map((f) => `${String(f.step).padStart(4)} ${f.car} ${f.type} ${f.detail}`)
    .sort();

type Row = Record<string, string>;
const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Row[];

/** tshark's reading of a capture: each frame's protocols, and whether any part was malformed. */
function tshark(file: string): { protocols: string; malformed: boolean; text: string }[] {
  const out = execFileSync('/usr/bin/tshark', ['-r', file, '-T', 'json'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(out) as { _source: { layers: Record<string, unknown> & { frame: Record<string, string> } } }[]).map((p) => {
    const text = JSON.stringify(p._source.layers);
    return {
      protocols: p._source.layers.frame['frame.protocols'],
      malformed: /_ws\.malformed|_ws\.expert\.severity": "(?:8388608|4194304)/.test(text),
      text,
    };
  });
}

describe('ETSI apps in the emulated programs on loopback against the simulated runtime', () => {
  let entry: ReturnType<typeof buildEntryPoints>;
  const cleanup: string[] = [];
  beforeAll(() => {
    entry = buildEntryPoints();
  });
  afterAll(() => {
    for (const d of cleanup) rmSync(d, { recursive: true, force: true });
  });

  async function bothRuntimes(
    file: string,
    overrides: string[] = [],
  ): Promise<{ scenario: ResolvedScenario; sim: Sent[]; emu: Sent[]; run: LoopbackRun; simDir: string }> {
    const scenario = await loadScenario(file.startsWith('/') ? file : join(repoRoot, file), { overrides });
    for (const v of scenario.vehicles) stationNames.set(stationIdOf(v.name), v.name);
    const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-etsi-sim-'));
    cleanup.push(runsDir);
    const reference = await runResolvedSimulated(scenario, { runsDir });
    const run = await runOnLoopback(entry, scenario, { runId: `etsi-${scenario.name}`, addressPerCar: true });
    cleanup.push(run.runDir);
    const logs = `${run.sim.stderr().slice(-2000)}\n${run.vehicles.map((v) => v.child.stderr().slice(-1000)).join('\n')}`;
    expect(run.simExit, logs).toBe(0);
    expect(['completed', 'invalid'], `${run.summary.reason}\n${logs}`).toContain(run.summary.status);
    // Invalid only for the loaded machine's lateness: every datagram came from the car it names, its GN packet from that car's station.
    expect(run.summary.reason ?? '').not.toMatch(/forged/);
    expect(run.summary.events.filter((e) => e.event === 'v2v-forged')).toEqual([]);
    return {
      scenario,
      sim: sentFrames(join(reference.runDir, 'v2v.pcap'), scenario),
      emu: sentFrames(join(run.runDir, 'v2v.pcap'), scenario),
      run,
      simDir: reference.runDir,
    };
  }

  /** What both runtimes share, and what the emulated run folder must say about its frames. */
  function checkEmulatedCapture(run: LoopbackRun, emu: readonly Sent[], scenario: ResolvedScenario): void {
    // Each frame at its send stamp: the run's time when the vehicle sent it, at or after the step it was built for.
    for (const f of emu) {
      expect(f.t + 1e-6).toBeGreaterThanOrEqual(f.step * scenario.physics.timestep);
      expect(f.t).toBeLessThan(f.step * scenario.physics.timestep + 0.5);
    }
    console.log(
      `${scenario.name}: ${emu.filter((f, i) => i > 0 && f.t < emu[i - 1].t).length} of ${emu.length} pcap records earlier than the one before; send stamp - step time: max ${Math.max(...emu.map((f) => f.t - f.step * scenario.physics.timestep)).toFixed(4)} s`,
    );
    // v2v.csv: one message per frame, sized as its GN packet (as the simulated runtime sizes it).
    const v2v = rows(run.runDir, 'v2v.csv');
    const sizes = new Map(v2v.map((r) => [r.id, Number(r.size_bytes)]));
    const sorted = (sizesOf: number[]) => sizesOf.sort((a, b) => a - b);
    for (const v of scenario.vehicles) {
      const fromCsv = sorted([...sizes].filter(([id]) => id.startsWith(`${v.name}-`)).map(([, s]) => s));
      const fromPcap = sorted(emu.filter((f) => f.car === v.name).map((f) => f.bytes));
      expect(fromCsv, v.name).toEqual(fromPcap);
    }
    // Delivered over UDP and decoded by the receivers from the packet bytes.
    expect(v2v.filter((r) => r.outcome === 'delivered').length).toBeGreaterThan(0);
    // tshark decodes every frame as a CAM or DENM, none malformed.
    const decoded = tshark(join(run.runDir, 'v2v.pcap'));
    expect(decoded).toHaveLength(emu.length);
    for (const [i, d] of decoded.entries()) {
      expect(d.malformed, d.text.slice(0, 2000)).toBe(false);
      expect(d.protocols).toBe('eth:ethertype:gnw:btpb:its');
      expect(d.text).toContain(emu[i].type === 'cam' ? '"its.messageID":"2"' : '"its.messageID":"1"');
    }
  }

  /**
   * The comparison. Each runtime's timeline is what its apps owe the trajectory it recorded (a
   * replay of the apps in virtual time on its vehicles.csv), so the emulated apps decided on the
   * steps' times. A car's sends are the same to the step in both runtimes up to the first step at
   * which that car differs between the runs, and a car only parts where a drive command reached
   * physics at another step than in virtual time: one that arrived late (real-time lateness of
   * the emulated control link), or a reaction to a V2V message that arrived at another time
   * (loopback has no channel delay, and an emulated car reacts between ticks), never an app's
   * time-based decision.
   */
  function compareTimelines(
    name: string,
    scenario: ResolvedScenario,
    sim: readonly Sent[],
    emu: readonly Sent[],
    simDir: string,
    run: LoopbackRun,
  ) {
    const dt = scenario.physics.timestep;
    const simLine = timeline(sim);
    const emuLine = timeline(emu);
    expect(timeline(replay(simDir, scenario)), 'the replay of the simulated run').toEqual(simLine);
    expect(timeline(replay(run.runDir, scenario)), 'the replay of the emulated run').toEqual(emuLine);
    const timing = run.summary.timing as Record<string, unknown> | undefined;
    const perCar: string[] = [];
    let comparedSends = 0;
    for (const v of scenario.vehicles) {
      const parted = firstDivergence(simDir, run.runDir, dt, v.name);
      if (parted)
        expect(parted.commandDiffered, `${v.name} parted without a drive command applied at another step: ${parted.rows}`).toBe(true);
      const mine = (lines: string[]) =>
        lines.filter((l) => l.slice(4).startsWith(` ${v.name} `) && Number(l.slice(0, 5)) < (parted?.step ?? Infinity));
      expect(mine(emuLine), v.name).toEqual(mine(simLine));
      comparedSends += mine(simLine).length;
      perCar.push(`${v.name} ${parted ? `parts at step ${parted.step}` : 'never parts'} (${mine(simLine).length} sends before)`);
    }
    const whole = JSON.stringify(emuLine) === JSON.stringify(simLine);
    console.log(
      `${name}: ${simLine.length} sends in sim, ${emuLine.length} emulated (${run.summary.status}: ${run.summary.reason ?? ''}); ${perCar.join('; ')}; ` +
        `${comparedSends} sends compared, identical; whole timelines ${whole ? 'identical' : 'differ after a parting'}; late commands ${JSON.stringify(timing?.late_command_fraction)}`,
    );
    return { simLine, emuLine, comparedSends };
  }

  it('cam-highway: every CAM at the same step, per car, in both runtimes; real GN packets on the wire and in v2v.pcap', async () => {
    const { scenario, sim, emu, run, simDir } = await bothRuntimes('scenarios/cam-highway.yaml', ['duration=8s']);
    const { simLine, comparedSends } = compareTimelines('cam-highway', scenario, sim, emu, simDir, run);
    // No car is commanded anything before t = 4 s: at least the CAMs until then are compared.
    expect(comparedSends).toBeGreaterThanOrEqual(simLine.filter((l) => Number(l.slice(0, 5)) < 400).length);
    console.log(`cam-highway: CAM sizes ${[...new Set(emu.map((f) => f.bytes))].sort().join(', ')} bytes`);
    expect(simLine.length).toBeGreaterThan(20);
    expect(new Set(sim.map((f) => f.car))).toEqual(new Set(['car0', 'car1', 'car2']));
    expect(emu.every((f) => f.type === 'cam' && Number.isInteger(f.step))).toBe(true);
    checkEmulatedCapture(run, emu, scenario);
    // The receivers placed each other from the CAMs' packets: per-pair CAM figures exist.
    expect(run.summary.v2v.cam?.pairs.length).toBe(6);
  });

  it('hard-braking-denm: the DENMs (new, repetitions, cancellation; cause 99/1) at the same steps; the follower reacts to the decoded packet', async () => {
    const { scenario, sim, emu, run, simDir } = await bothRuntimes('scenarios/hard-braking-denm.yaml', ['duration=5s']);
    const { simLine, emuLine } = compareTimelines('hard-braking-denm', scenario, sim, emu, simDir, run);
    console.log(
      `hard-braking-denm: sim ${JSON.stringify(simLine)}; emulated ${JSON.stringify(emuLine)}; DENM sizes ${[...new Set(emu.map((f) => f.bytes))].sort().join(', ')} bytes`,
    );
    expect(simLine.length).toBeGreaterThan(3);
    for (const line of [simLine, emuLine]) {
      expect(line.every((l) => / car0 denm 99\/1/.test(l))).toBe(true);
      expect(line.some((l) => l.endsWith('cancel'))).toBe(true);
    }
    checkEmulatedCapture(run, emu, scenario);
    const received = run.summary.events.find((e) => e.vehicle === 'car1' && e.event === 'warning-received');
    expect(received?.detail).toMatchObject({ format: 'denm', event: 'hard-braking', cause: 99, sub_cause: 1 });
    expect(run.summary.collision).toBe(false);
  });

  it("cavsim's own messages beside CAMs: JSON datagrams on the wire, in v2v.pcap as the simulated runtime writes them (BTP-B port 47000, padded), tshark reads them all", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cavsim-etsi-mixed-'));
    cleanup.push(dir);
    const file = join(dir, 'mixed.yaml');
    writeFileSync(
      file,
      `name: etsi-mixed
map: ${join(repoRoot, 'maps/highway.yaml')}
duration: 2s
seed: 1
geoReference: { lat: 48.7758, lon: 9.1829 }
network: { channel: latency, delay: 5ms, dataRate: 6Mbps }
vehicles:
  - name: car0
    start: { x: 0, y: -1, yaw: 0, speed: 5 }
    apps: [{ type: cam }, { type: beacon, rate: 10Hz, size: 200B }]
  - name: car1
    start: { x: -20, y: -1, yaw: 0, speed: 5 }
    apps: [{ type: cam }, { type: warning, at: 1s, every: 100ms, for: 300ms, to: car0, event: hard-braking }]
`,
    );
    const { scenario, sim, emu, run, simDir } = await bothRuntimes(file);
    // The CAMs, as ever, at the same steps (nothing here can make the cars part: they only coast).
    expect(timeline(emu)).toEqual(timeline(sim));
    expect(firstDivergence(simDir, run.runDir, scenario.physics.timestep)).toBeUndefined();
    const v2v = rows(run.runDir, 'v2v.csv');
    const byId = new Map(v2v.map((r) => [r.id, r]));
    const frames = readPcap(join(run.runDir, 'v2v.pcap'));
    expect(frames).toHaveLength(byId.size);
    const json = frames
      .map((f) => new Uint8Array(f.frame.subarray(14)))
      .filter((p) => p[5] >> 4 === 5 && decodeShb(p).btpPort === BTP_PORT_CAVSIM_JSON);
    const messages = json.map((p) => {
      const payload = Buffer.from(decodeShb(p).payload);
      const text = payload.toString('utf8').replace(/\0+$/, '');
      return {
        msg: JSON.parse(text) as { id: string; from: string; to: string; type: string; body: Record<string, unknown> },
        length: payload.length,
        destination: '',
      };
    });
    expect(messages.filter((m) => m.msg.type === 'beacon').length).toBe(v2v.filter((r) => r.type === 'beacon').length);
    expect(messages.filter((m) => m.msg.type === 'warning').map((m) => m.msg.body.copy)).toEqual([1, 2, 3, 4]);
    for (const m of messages) {
      const row = byId.get(m.msg.id)!;
      expect(row, m.msg.id).toBeDefined();
      expect(m.msg).toMatchObject({ from: row.from, type: row.type });
      // padded to the datagram's size, as v2v.csv gives it (200 bytes for a beacon)
      expect(m.length).toBe(Number(row.size_bytes));
      if (m.msg.type === 'beacon') expect(m.length).toBe(200);
    }
    // a warning to car0 goes to car0's address; the rest are broadcast
    const warnings = frames.filter((f) => f.frame.includes(Buffer.from('"type":"warning"')));
    expect(warnings.map((f) => stationNames.get(f.frame.readUInt32BE(2)))).toEqual(['car0', 'car0', 'car0', 'car0']);
    const decoded = tshark(join(run.runDir, 'v2v.pcap'));
    expect(decoded).toHaveLength(frames.length);
    for (const d of decoded) {
      expect(d.malformed, d.text.slice(0, 2000)).toBe(false);
      expect(d.protocols).toMatch(/^eth:ethertype:gnw:btpb/);
    }
    const simDecoded = tshark(join(simDir, 'v2v.pcap'));
    expect(new Set(decoded.map((d) => d.protocols))).toEqual(new Set(simDecoded.map((d) => d.protocols)));
  });
});
