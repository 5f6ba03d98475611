import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenarioEmulated } from '../../../src/api/run-emulated.js';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { stationIdOf } from '../../../src/core/v2x/networking/station-id.js';
import { PCAP_EPOCH_UNIX_S } from '../../../src/measurement/pcap-log.js';
import { BTP_PORT_CAVSIM_JSON } from '../../../src/measurement/v2v-capture.js';
import type { RunSummary } from '../../../src/run/summary.js';
import { writeCamSpeakerScenario } from '../../support/own-code/cam-speaker-scenario.js';
import { requireReal, tsharkProblem } from '../../support/real-components.js';
import { emulatedHostState } from './host-state.js';
import { emulatedE2e, ROOT } from './support/e2e.js';

/**
 * CAM, DENM and CPM in Docker containers over ns-3: the GN packets the apps build cross the channel
 * as real datagrams, and the run's v2v.pcap, decoded by Wireshark's own dissectors (tshark), holds
 * them as the simulated runtime writes them; the events happen as in the simulated runtime.
 */
const { runsDir, real: emulated } = await emulatedE2e('etsi-messages');
const tshark = requireReal('emulated/etsi-messages.test.ts', tsharkProblem());
const FIELDS = [
  'frame.time_epoch',
  'frame.protocols',
  'frame.len',
  'its.messageID',
  'its.stationID',
  'its.causeCode',
  'its.subCauseCode',
  'btpb.dstport',
  '_ws.expert',
  '_ws.malformed',
];

interface Frame {
  t: number;
  layers: Record<string, string[] | undefined>;
}

const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Record<string, string>[];
const num = (f: Frame, field: string) => Number(f.layers[field]?.[0]);

function decoded(runDir: string): Frame[] {
  const json = execFileSync('tshark', ['-r', join(runDir, 'v2v.pcap'), '-T', 'json', ...FIELDS.flatMap((f) => ['-e', f])], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(json) as { _source: { layers: Frame['layers'] } }[]).map((p) => ({
    layers: p._source.layers,
    t: Number(p._source.layers['frame.time_epoch']![0]) - PCAP_EPOCH_UNIX_S,
  }));
}

/** Every frame well formed; an ETSI message's size in v2v.csv is its GN packet's (the frame less its Ethernet header). */
function expectWellFormed(frames: Frame[], runDir: string, messageId: number, port: number): void {
  expect(frames.length).toBeGreaterThan(0);
  for (const f of frames) {
    expect(f.layers['_ws.malformed'], JSON.stringify(f.layers)).toBeUndefined();
    expect(f.layers['_ws.expert'], JSON.stringify(f.layers)).toBeUndefined();
    // cavsim's own JSON messages (a brake request, say) go on BTP-B port 47000, as raw data
    expect(f.layers['frame.protocols']![0]).toBe(
      num(f, 'btpb.dstport') === BTP_PORT_CAVSIM_JSON ? 'eth:ethertype:gnw:btpb:data' : 'eth:ethertype:gnw:btpb:its',
    );
  }
  const ours = frames.filter((f) => num(f, 'its.messageID') === messageId);
  expect(ours.length).toBeGreaterThan(0);
  for (const f of ours) expect(num(f, 'btpb.dstport')).toBe(port);
  const sent = rows(runDir, 'v2v.csv').filter((r) => ['cam', 'denm', 'cpm'].includes(r.type));
  const its = frames.filter((f) => num(f, 'btpb.dstport') !== BTP_PORT_CAVSIM_JSON);
  expect(new Set(sent.map((r) => Number(r.size_bytes)))).toEqual(new Set(its.map((f) => num(f, 'frame.len') - 14)));
}

/** Lateness alone may make a run on a loaded machine invalid; nothing else may. */
function expectRan(s: RunSummary): void {
  expect(['completed', 'invalid'], s.reason).toContain(s.status);
  if (s.status === 'invalid') expect(s.reason).toMatch(/late/);
}

describe.skipIf(emulated.skip || tshark.skip)('ETSI messages in an emulated run (Docker + ns-3), read by tshark', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    emulated.assertPresent();
    tshark.assertPresent();
    before = emulatedHostState();
  });

  it("hard-braking-denm: the leader's DENMs (99/1) cross ns-3 as GN packets, the follower brakes on the first as in virtual time; v2v.pcap decodes", async () => {
    const file = join(ROOT, 'scenarios/hard-braking-denm.yaml');
    const overrides = ['duration=5s'];
    const e = await runScenarioEmulated(file, { runsDir, overrides });
    const s = (await runScenarioSimulated(file, { runsDir, overrides, mcapByDefault: false })).summary;
    expectRan(e.summary);
    const frames = decoded(e.runDir);
    expectWellFormed(frames, e.runDir, 1, 2002);
    expect(frames.map((f) => num(f, 'its.stationID'))).toEqual(frames.map(() => stationIdOf('car0')));
    expect([num(frames[0], 'its.causeCode'), num(frames[0], 'its.subCauseCode')]).toEqual([99, 1]);
    // the event is the scripted brake's, at the same step in both runtimes unless a late drive command moved the leader
    const trigger = (x: RunSummary) => x.events.find((ev) => ev.event === 'denm-triggered')!.t_s;
    const lateCommands = (e.summary.timing as { late_commands?: number } | undefined)?.late_commands ?? 0;
    if (lateCommands === 0) expect(trigger(e.summary)).toBe(trigger(s));
    else expect(Math.abs(trigger(e.summary) - trigger(s))).toBeLessThanOrEqual(0.05);
    // v2v.pcap stamps a frame with the wall-clock time it was sent: the event's tick, which real time runs late by its lag
    expect(frames[0].t).toBeGreaterThanOrEqual(trigger(e.summary));
    expect(frames[0].t - trigger(e.summary)).toBeLessThan(0.1);
    const brake = (x: RunSummary) => x.events.find((ev) => ev.vehicle === 'car1' && ev.event === 'emergency-brake');
    expect(brake(e.summary), 'the follower braked on the DENM').toBeDefined();
    expect(e.summary.collision).toBe(s.collision);
    const d = e.summary.v2v.denm!;
    console.log(
      `[etsi-emulated] DENM: ${frames.length} frames, event to reception ${JSON.stringify(d.event_to_reception)} (simulated ${JSON.stringify(s.v2v.denm?.event_to_reception)}), to action ${JSON.stringify(d.event_to_action)}`,
    );
    expect(d.received).toBe(1);
    expect(d.event_to_reception!.p50_ms).toBeGreaterThanOrEqual(10); // the channel's 10 ms, and the hosts' stacks
    expect(d.event_to_reception!.p50_ms).toBeLessThan(100); // a loaded machine's late ticks, not a lost DENM
    expect(emulatedHostState()).toEqual(before);
  });

  it('cam-highway: every car sends CAMs, which cross ns-3 and decode, with their station IDs and real sizes', async () => {
    const e = await runScenarioEmulated(join(ROOT, 'scenarios/cam-highway.yaml'), { runsDir, overrides: ['duration=4s'] });
    expectRan(e.summary);
    const frames = decoded(e.runDir);
    expectWellFormed(frames, e.runDir, 2, 2001);
    const cars = new Set(rows(e.runDir, 'vehicles.csv').map((r) => r.vehicle));
    expect(cars.size).toBe(3);
    expect(new Set(frames.map((f) => num(f, 'its.stationID')))).toEqual(new Set([...cars].map((c) => stationIdOf(c))));
    const received = rows(e.runDir, 'v2v.csv').filter((r) => r.type === 'cam' && r.outcome === 'delivered');
    expect(received.length).toBeGreaterThan(frames.length); // each CAM reaches the other two cars
    const pairs = rows(e.runDir, 'cam-pairs.csv');
    expect(pairs).toHaveLength(6); // every sender with each of the two others
    for (const p of pairs) expect(Number(p.cams_received)).toBeGreaterThan(0);
    expect(rows(e.runDir, 'channel-busy.csv').length).toBeGreaterThan(30); // a row per 100 ms
    console.log(
      `[etsi-emulated] CAM: ${frames.length} sent, ${received.length} receptions, sizes ${[...new Set(frames.map((f) => num(f, 'frame.len') - 14))].join(', ')} B`,
    );
    expect(emulatedHostState()).toEqual(before);
  });

  it("own code in a container sends its own CAMs as GN packets through its relay, over ns-3; another car's come to it raw and decoded; a packet claiming another station is refused", async () => {
    // the cam-speaker test program, on cavsim's vehicle image (Node.js, ws and cavsim's codec in /opt/cavsim)
    const context = mkdtempSync(join(tmpdir(), 'cavsim-cam-speaker-'));
    const image = `cavsim-test/cam-speaker:${process.pid}`;
    try {
      copyFileSync(join(ROOT, 'test/support/own-code/cam-speaker.mjs'), join(context, 'cam-speaker.mjs'));
      writeFileSync(
        join(context, 'Dockerfile'),
        'FROM cavsim/vehicle:latest\nCOPY cam-speaker.mjs /opt/cavsim/test/support/own-code/cam-speaker.mjs\n',
      );
      execFileSync('node', [join(ROOT, 'dist/cli/main.js'), 'images'], { stdio: 'ignore' });
      execFileSync('docker', ['build', '-q', '-t', image, context], { stdio: 'ignore' });
      const file = writeCamSpeakerScenario(join(context, 'own-code-cams.yaml'), [
        `image: ${image}`,
        'command: [node, /opt/cavsim/test/support/own-code/cam-speaker.mjs, --forge-as, car1]',
      ]);
      const e = await runScenarioEmulated(file, { runsDir });
      expectRan(e.summary);
      const mine = rows(e.runDir, 'v2v.csv').filter((r) => r.from === 'car0');
      expect(mine.length).toBe(2); // at 1.5 s and 2.5 s; the forged one at 0.5 s was refused
      for (const r of mine) expect(r).toMatchObject({ type: 'cam', to: 'car1', outcome: 'delivered' });
      const refused = e.summary.events.filter((ev) => ev.event === 'v2v-refused');
      expect(refused.map((ev) => ev.vehicle)).toEqual(['car0']);
      expect(String(refused[0].detail?.reason)).toMatch(/^its GN source is station \d+, not car0's station/);
      const heard = e.summary.events.filter((ev) => ev.event === 'cam-heard');
      expect(heard.length).toBeGreaterThan(1);
      for (const ev of heard)
        expect(ev.detail).toMatchObject({ from: 'car1', station: stationIdOf('car1'), body_station: stationIdOf('car1') });
      const frames = decoded(e.runDir);
      expectWellFormed(frames, e.runDir, 2, 2001);
      expect(frames.filter((f) => num(f, 'its.stationID') === stationIdOf('car0'))).toHaveLength(2);
      expect(emulatedHostState()).toEqual(before);
    } finally {
      spawnSync('docker', ['image', 'rm', '-f', image], { stdio: 'ignore' });
      rmSync(context, { recursive: true, force: true });
    }
  });

  it('cpm-hidden-obstacle: the car that cannot see car1 learns of it from CPMs over ns-3 and stops short, as in virtual time', async () => {
    const file = join(ROOT, 'scenarios/cpm-hidden-obstacle.yaml');
    const e = await runScenarioEmulated(file, { runsDir });
    const s = (await runScenarioSimulated(file, { runsDir, mcapByDefault: false })).summary;
    expectRan(e.summary);
    expect(s.collision).toBe(false);
    expect(e.summary.collision, e.summary.reason).toBe(false);
    const frames = decoded(e.runDir);
    expectWellFormed(frames, e.runDir, 14, 2009);
    expect(e.summary.events.some((ev) => ev.vehicle === 'car0' && ev.event === 'emergency-brake')).toBe(true);
    console.log(
      `[etsi-emulated] CPM: ${frames.length} frames; car0 braked at ${e.summary.events.find((ev) => ev.vehicle === 'car0' && ev.event === 'emergency-brake')?.t_s} s (simulated ${s.events.find((ev) => ev.vehicle === 'car0' && ev.event === 'emergency-brake')?.t_s} s)`,
    );
    expect(emulatedHostState()).toEqual(before);
  });
});
