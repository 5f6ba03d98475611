import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMap } from '../../../../../src/core/map/load-map.js';
import { REFUSALS_INVALID_AFTER, REFUSALS_LOGGED_PER_CAR } from '../../../../../src/measurement/refusal-log.js';
import type { BodyLink } from '../../../../../src/runtime/emulated/containers/body-link.js';
import { SimulatorLogs } from '../../../../../src/runtime/emulated/containers/simulator-logs.js';
import { SimulatorReports } from '../../../../../src/runtime/emulated/containers/simulator-reports.js';
import { summarizeSimulatorRun } from '../../../../../src/runtime/emulated/containers/simulator-summary.js';
import type { StepTiming } from '../../../../../src/runtime/emulated/containers/step-timing.js';
import type { V2VReport } from '../../../../../src/runtime/rosbridge/control-topics.js';
import { loadScenario } from '../../../../../src/scenario/load-scenario.js';
import { World } from '../../../../../src/world/world.js';

/**
 * The simulator container's side of issue 52 in emulation: what the cars' V2V relays and vehicle
 * programs report about malformed messages and refused sends goes to v2v.csv, the refusal counts
 * and summary.json as in the simulated runtime. Fakes for the clock offsets and step timing.
 */
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cavsim-hostile-reports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = 1_000_000_000_000n;
const at = (s: number) => (T0 + BigInt(Math.round(s * 1e9))).toString();
const bodies = { toSimulatorNs: (_car: string, ns: bigint) => ns, cars: new Map() } as unknown as BodyLink;

async function simulator(runId: string) {
  const text = readFileSync(join(ROOT, 'scenarios/cam-highway.yaml'), 'utf8').replaceAll('../maps/', join(ROOT, 'maps/'));
  const file = join(dir, `${runId}.yaml`);
  writeFileSync(file, `${text.trimEnd()}\n  - name: car3\n    start: { x: 60, y: 1, yaw: 0, speed: 2 }\n    image: hostile:latest\n`);
  const scenario = await loadScenario(file);
  const runDir = join(dir, runId);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(runDir, { recursive: true });
  const world = new World(scenario, await loadMap(scenario.mapFile!));
  // the run is at 0.2 s: reports up to then are believed at their own time
  while (world.time < 0.2 - 1e-9) world.step();
  const logs = new SimulatorLogs(scenario, runDir);
  const names = scenario.vehicles.map((v) => v.name);
  const reports = new SimulatorReports(world, logs, bodies, names, runDir);
  const summarize = () => {
    logs.close(() => {});
    const timing = { figures: () => undefined, invalidReason: () => undefined } as unknown as StepTiming;
    const end = { scenario, runId, runDir, world, logs, timing, bodies, reports, bridgeDropped: 0, t0: undefined };
    return summarizeSimulatorRun({ ...end, wallStartNs: T0, endNs: T0, failure: undefined, interruptReason: undefined, log: () => {} });
  };
  return { reports, runDir, summarize };
}

const sent = (id: string, malformed?: string): V2VReport => ({
  kind: 'sent',
  id,
  from: 'car3',
  to: '*',
  type: 'cam',
  size_bytes: 60,
  sent_ns: at(0.5),
  packet: Buffer.from('not a GN packet').toString('base64'),
  ...(malformed ? { malformed } : {}),
});
const received = (id: string, to: string, malformed?: string): V2VReport => ({
  kind: 'received',
  id,
  from: 'car3',
  to,
  type: 'cam',
  sent_ns: at(0.5),
  received_ns: at(0.502),
  size_bytes: 60,
  ...(malformed ? { malformed } : {}),
});

describe('the emulated simulator records what the cars’ gates and relays refused', () => {
  it('a malformed CAM: malformed at every receiver in v2v.csv, counted once at its sender, in no CAM figure', async () => {
    const sim = await simulator('malformed');
    const why = 'GeoNetworking: 15 octets, fewer than a GN header';
    sim.reports.recordV2V(sent('car3-1', why), T0);
    for (const to of ['car0', 'car1', 'car2']) sim.reports.recordV2V(received('car3-1', to, why), T0);
    // a receipt reported before its send (the relay's report came late) settles the same way
    sim.reports.recordV2V(received('car3-2', 'car0', why), T0);
    sim.reports.recordV2V(sent('car3-2', why), T0);
    const { summary } = sim.summarize();
    const rows = parse(readFileSync(join(sim.runDir, 'v2v.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const car3 = rows.filter((r) => r.from === 'car3');
    expect(car3.map((r) => `${r.id}>${r.to}:${r.outcome}`).sort()).toEqual([
      'car3-1>car0:malformed',
      'car3-1>car1:malformed',
      'car3-1>car2:malformed',
      'car3-2>car0:malformed',
      'car3-2>car1:not-received',
      'car3-2>car2:not-received',
    ]);
    expect(summary.refusals!.cars.car3.by_reason.malformed).toEqual({ count: 2, first_t_s: 0.5, last_t_s: 0.5 });
    expect(summary.v2v.received).toBe(0);
    expect(summary.v2v.cam ?? null).toBeNull();
    expect(summary.events.filter((e) => e.event === 'v2v-malformed')).toHaveLength(2);
  });

  it('a send its relay refused for its address: counted per reason, the first ones as events; past the limit the run is invalid, naming the car', async () => {
    const sim = await simulator('refused');
    const refusal = (to: string, reason: string, t = 0.03) =>
      sim.reports.recordEvent({
        vehicle: 'car3',
        t_s: t,
        event: 'v2v-refused',
        detail: { refused: 'v2v-destination', type: 'cam', to, reason },
      });
    refusal('car3', 'addressed to the sending car itself');
    for (let i = 0; i < REFUSALS_INVALID_AFTER; i++) refusal('car9', '"car9" is no car of this run', 0.04);
    sim.reports.recordEvent({ vehicle: 'car3', t_s: 0.05, event: 'v2v-refused', detail: { refused: 'v2v-source', type: 'cam', to: '*' } });
    const { summary, status, reason } = sim.summarize();
    expect(status).toBe('invalid');
    expect(reason).toMatch(/^car3 sent 102 messages the run refused \(more than 100: v2v-destination 101, v2v-source 1;/);
    expect(summary.refusals!.cars.car3.by_reason).toEqual({
      'v2v-destination': { count: 101, first_t_s: 0.03, last_t_s: 0.04 },
      'v2v-source': { count: 1, first_t_s: 0.05, last_t_s: 0.05 },
    });
    const events = summary.events.filter((e) => e.event === 'v2v-refused');
    expect(events).toHaveLength(REFUSALS_LOGGED_PER_CAR);
    expect(events[0]).toMatchObject({
      t_s: 0.03,
      vehicle: 'car3',
      detail: { refused: 'v2v-destination', to: 'car3', reason: 'addressed to the sending car itself' },
    });
    // summary.json on disk says the same, `parameters` still last
    const written = JSON.parse(readFileSync(join(sim.runDir, 'summary.json'), 'utf8'));
    expect(written.refusals).toEqual(summary.refusals);
    expect(Object.keys(written).at(-1)).toBe('parameters');
  });

  it('a run whose cars refused nothing has no refusals in its summary', async () => {
    const sim = await simulator('quiet');
    expect(sim.summarize().summary.refusals).toBeUndefined();
  });

  it('what the control link refused a car: not-allowed, drive-stamp or bad-request under the car, as in the simulated runtime', async () => {
    const sim = await simulator('link');
    sim.reports.recordLinkRefusal('car3', {
      op: 'publish',
      topic: '/sim_control',
      notAllowed: true,
      message: 'car3 may not publish /sim_control',
    });
    sim.reports.recordLinkRefusal('car3', {
      op: 'publish',
      topic: '/car3/drive',
      notAllowed: false,
      message: 'header.stamp must be a time',
    });
    for (let i = 0; i < 3; i++) sim.reports.recordLinkRefusal('car3', { notAllowed: false, message: 'not JSON' });
    const { summary } = sim.summarize();
    expect(Object.fromEntries(Object.entries(summary.refusals!.cars.car3.by_reason).map(([r, c]) => [r, c!.count]))).toEqual({
      'drive-stamp': 1,
      'not-allowed': 1,
      'bad-request': 3,
    });
    expect(summary.events.find((e) => e.detail?.refused === 'not-allowed')).toMatchObject({
      vehicle: 'car3',
      event: 'refused',
      detail: { op: 'publish', topic: '/sim_control', reason: 'car3 may not publish /sim_control' },
    });
  });
});
