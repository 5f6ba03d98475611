import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { stationIdOf, stationMac } from '../../../src/core/v2x/networking/station-id.js';
import { REFUSALS_INVALID_AFTER, REFUSALS_LOGGED_PER_CAR } from '../../../src/measurement/refusal-log.js';
import type { RunEvent } from '../../../src/run/events.js';
import type { RunSummary } from '../../../src/run/summary.js';

/**
 * Fuzz of what a car's own code or an external device can send (issue 52): the hostile program
 * (test/support/own-code/hostile-vehicle.mjs) joins the shipped CAM and DENM scenarios as car3,
 * once as own code, once as a device, against a control run where the same program is honest.
 * Nothing it sends crashes the run or counts as a message; every refusal is counted; the
 * scenario's own cars behave exactly as in the control run.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HOSTILE = join(ROOT, 'test/support/own-code/hostile-vehicle.mjs');
const workDir = mkdtempSync(join(tmpdir(), 'cavsim-hostile-'));
const devices: ChildProcess[] = [];
afterAll(() => {
  for (const d of devices) if (d.exitCode === null) d.kill('SIGKILL');
  rmSync(workDir, { recursive: true, force: true });
});

type Row = Record<string, string>;
const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Row[];
const HONEST = ['car0', 'car1', 'car2'];
const honestOnly = (r: Row) => !Object.values(r).includes('car3');
const STANDARD = ['cam', 'denm', 'cpm'];

/** The shipped scenario with car3 added: its own code (`command`), or a device that connects (`external`). */
function withCar3(shipped: string, car3: 'hostile' | 'honest' | 'device', engine?: 'builtin' | 'ns3', extra = ''): string {
  const text = readFileSync(join(ROOT, 'scenarios', `${shipped}.yaml`), 'utf8').replaceAll('../maps/', join(ROOT, 'maps/'));
  const how =
    car3 === 'device'
      ? '    external: { role: controller, listen: "127.0.0.1:0", connectTimeout: 30s, barrier: true }\n'
      : `    command: ["node", "${HOSTILE}"${car3 === 'honest' ? ', "--honest"' : ''}]\n`;
  const file = join(workDir, `${shipped}-${car3}-${engine ?? 'default'}${extra ? '-extra' : ''}.yaml`);
  const network = engine ? text.replace(/^network:\n/m, `network:\n  engine: ${engine}\n`) : text;
  writeFileSync(file, `${extra}${network.trimEnd()}\n  - name: car3\n    start: { x: 60, y: 1, yaw: 0, speed: 2 }\n${how}`);
  return file;
}

/** Runs `file`; a device scenario gets the hostile program started at the address the run prints. */
async function run(file: string, runId: string) {
  const events = {
    emit(e: RunEvent) {
      const url = e.type === 'log' ? /external controller at (ws:\/\/\S+)/.exec(e.message)?.[1] : undefined;
      if (!url) return;
      const child = spawn('node', [HOSTILE, '--url', url, '--vehicle', 'car3'], { stdio: ['ignore', 'ignore', 'inherit'] });
      devices.push(child);
    },
  };
  return runScenarioSimulated(file, { runsDir: workDir, runId, events, mcapByDefault: false });
}

/** What the hostile car must have been refused, whichever way it spoke. */
function expectRefused(summary: RunSummary, dir: string): void {
  expect(summary.status, summary.reason).toBe('invalid');
  expect(summary.exit_status).toBe(6);
  expect(summary.reason).toMatch(new RegExp(`^car3 sent \\d+ messages the run refused \\(more than ${REFUSALS_INVALID_AFTER}: `));
  const car3 = summary.refusals!.cars.car3;
  expect(Object.keys(summary.refusals!.cars)).toEqual(['car3']);
  const by = car3.by_reason;
  // to itself, to "car9", to "car0 car3", to "\u0000"
  expect(by['v2v-destination']?.count).toBe(4);
  // two stamps from the future, a string, null, a fraction of a nanosecond
  expect(by['drive-stamp']?.count).toBe(5);
  expect(car3.clamped).toBe(1);
  // /sim_control, car0's /drive, car0's received messages
  expect(by['not-allowed']?.count).toBe(3);
  // an unfinished JSON op, a binary frame, an oversized send, the 2000-frame flood
  expect(by['bad-request']?.count).toBe(2003);
  // every malformed message counted once, and dropped at every receiver
  const v2v = rows(dir, 'v2v.csv');
  const malformedIds = new Set(v2v.filter((r) => r.outcome === 'malformed').map((r) => r.id));
  expect(by.malformed?.count).toBe(malformedIds.size);
  // its made-up receipt: this runtime logs V2V itself and takes no car's report
  expect(v2v.filter((r) => r.id === 'car0-forged')).toEqual([]);
  expect(malformedIds.size).toBeGreaterThan(20);
  expect(car3.refused).toBe(Object.values(by).reduce((n, c) => n + c!.count, 0) - car3.clamped);
  // nothing car3 sent arrived as a standard message, and no figure counts it
  const fromCar3 = v2v.filter((r) => r.from === 'car3');
  expect(fromCar3.filter((r) => STANDARD.includes(r.type) && r.outcome === 'delivered')).toEqual([]);
  expect(summary.v2v.cam?.senders.map((s) => s.vehicle) ?? []).not.toContain('car3');
  expect(summary.v2v.cam?.pairs.filter((p) => p.from === 'car3') ?? []).toEqual([]);
  // the first few as events and log lines, the rest only counted; nothing above the car's limits applied
  const logged = rows(dir, 'events.csv').filter((e) => e.vehicle === 'car3' && /refused|malformed/.test(e.event));
  expect(logged).toHaveLength(REFUSALS_LOGGED_PER_CAR);
  expect(readFileSync(join(dir, 'logs', 'car3.log'), 'utf8')).toMatch(
    /cavsim refused at t=0\.030 s: .*addressed to the sending car itself/,
  );
  const speeds = rows(dir, 'vehicles.csv')
    .filter((r) => r.vehicle === 'car3')
    .map((r) => Number(r.cmd_speed_mps));
  expect(Math.max(...speeds)).toBe(20);
}

/** The honest cars' records of two runs: identical. */
function expectHonestIdentical(control: string, hostile: string): void {
  for (const file of ['vehicles.csv', 'pairs.csv', 'v2v.csv', 'events.csv', 'collisions.csv']) {
    expect(rows(hostile, file).filter(honestOnly), file).toEqual(rows(control, file).filter(honestOnly));
  }
}

/** v2v.pcap: tshark reads all of it; every frame it finds malformed is car3's, none of the honest cars'. */
function expectPcapClean(dir: string): void {
  const tshark = spawnSync('tshark', ['-r', join(dir, 'v2v.pcap'), '-T', 'fields', '-e', 'eth.src', '-e', '_ws.malformed'], {
    encoding: 'utf8',
  });
  expect(tshark.status, tshark.stderr).toBe(0);
  const mac = (car: string) => [...stationMac(stationIdOf(car))].map((b) => b.toString(16).padStart(2, '0')).join(':');
  const frames = tshark.stdout
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  for (const car of HONEST) {
    const own = frames.filter(([src]) => src === mac(car));
    expect(
      own.filter(([, bad]) => bad),
      car,
    ).toEqual([]);
  }
  const flagged = frames.filter(([, bad]) => bad);
  expect(flagged.every(([src]) => src === mac('car3'))).toBe(true);
}

describe.each(['cam-highway', 'hard-braking-denm'])('a hostile car in %s', (shipped) => {
  const control = () => run(withCar3(shipped, 'honest'), `${shipped}-control`);

  it('as own code: refused, recorded, never counted; the other cars as in the control run', async () => {
    const c = await control();
    expect(c.summary.status, c.summary.reason).toBe('completed');
    expect(c.summary.refusals).toBeUndefined();
    expectPcapClean(c.runDir);
    const h = await run(withCar3(shipped, 'hostile'), `${shipped}-own-code`);
    expectRefused(h.summary, h.runDir);
    expectHonestIdentical(c.runDir, h.runDir);
    expectPcapClean(h.runDir);
    // the DENM figures (or CAM figures) of the honest cars are the control run's
    expect(h.summary.v2v.denm ?? null).toEqual(c.summary.v2v.denm ?? null);
    const honestSenders = (s: RunSummary) => (s.v2v.cam?.senders ?? []).filter((x) => x.vehicle !== 'car3');
    expect(honestSenders(h.summary)).toEqual(honestSenders(c.summary));
  });

  it('as an external device: refused and recorded the same way', async () => {
    const c = await control();
    const h = await run(withCar3(shipped, 'device'), `${shipped}-device`);
    expectRefused(h.summary, h.runDir);
    expectHonestIdentical(c.runDir, h.runDir);
    expectPcapClean(h.runDir);
  });
});

describe('addressing checked at the sender', () => {
  it('refuses a message to itself and to unknown cars identically with ns-3 in lock-step and the builtin engine', async () => {
    const refusalsOf = async (engine: 'builtin' | 'ns3') => {
      const r = await run(withCar3('cam-highway', 'hostile', engine), `engines-${engine}`);
      expect(r.summary.parameters.network.engine).toBe(engine);
      expect(r.summary.status, r.summary.reason).toBe('invalid');
      return {
        counted: r.summary.refusals!.cars.car3.by_reason['v2v-destination'],
        events: r.summary.events.filter((e) => e.event === 'v2v-refused' && e.detail?.refused === 'v2v-destination'),
        v2v: rows(r.runDir, 'v2v.csv').filter((row) => row.from === 'car3' && Number(row.sent_s) <= 0.04),
      };
    };
    const builtin = await refusalsOf('builtin');
    const ns3 = await refusalsOf('ns3');
    expect(ns3).toEqual(builtin);
    expect(builtin.events.map((e) => e.detail)).toEqual([
      { refused: 'v2v-destination', type: 'cam', to: 'car3', reason: 'addressed to the sending car itself' },
      { refused: 'v2v-destination', type: 'cam', to: 'car9', reason: '"car9" is no car of this run' },
      { refused: 'v2v-destination', type: 'cam', to: 'car0 car3', reason: `"car0 car3" is not a car's name` },
      { refused: 'v2v-destination', type: 'cam', to: '\u0000', reason: `"\\u0000" is not a car's name` },
    ]);
    // none of them reached the channel
    expect(builtin.v2v).toEqual([]);
  });
});

describe('a fleet run (no v2v.csv)', () => {
  it('tallies what every receiver dropped as malformed, in summary.json and delivery-distance.csv, never as delivered', async () => {
    const rowsRun = await run(withCar3('cam-highway', 'hostile', 'builtin'), 'fleet-rows');
    const malformedPairs = rows(rowsRun.runDir, 'v2v.csv').filter((r) => r.outcome === 'malformed').length;
    expect(malformedPairs).toBeGreaterThan(60);
    const fleet = await run(withCar3('cam-highway', 'hostile', 'builtin', 'record: { v2v: false }\n'), 'fleet-tally');
    const v2v = fleet.summary.v2v as unknown as { received: number; lost_by_reason: Record<string, number> };
    expect(v2v.lost_by_reason.malformed).toBe(malformedPairs);
    expect(v2v.received).toBe(rowsRun.summary.v2v.received);
    expect(fleet.summary.refusals!.cars.car3.by_reason.malformed).toEqual(rowsRun.summary.refusals!.cars.car3.by_reason.malformed);
    const table = rows(fleet.runDir, 'delivery-distance.csv');
    expect(table.reduce((n, r) => n + Number(r.malformed), 0)).toBe(malformedPairs);
  });

  it('with a radio that tallies its own outcomes (builtin 802.11p): malformed, not delivered', async () => {
    const radio = (text: string) =>
      text.replace(/^network:\n(?: {2}.*\n)+/m, 'network:\n  channel: wifi-80211p\n').replace(/^duration: .*$/m, 'duration: 3s');
    const file = withCar3('cam-highway', 'hostile', 'builtin', 'record: { v2v: false }\n');
    writeFileSync(file, radio(readFileSync(file, 'utf8')));
    const fleet = await run(file, 'fleet-radio');
    expect(fleet.summary.parameters.network.channel).toBe('wifi-80211p');
    const v2v = fleet.summary.v2v as unknown as { lost_by_reason: Record<string, number> };
    expect(v2v.lost_by_reason.malformed).toBeGreaterThan(20);
    const table = rows(fleet.runDir, 'delivery-distance.csv');
    expect(table.reduce((n, r) => n + Number(r.malformed), 0)).toBe(v2v.lost_by_reason.malformed);
  });
});
