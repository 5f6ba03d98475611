import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { ns3LockstepProblem, requireReal } from '../../support/real-components.js';

const real = requireReal('ns3-lockstep/lockstep-runtime.test.ts', ns3LockstepProblem());
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HEAD_ON = join(ROOT, 'scenarios/head-on-brake.yaml');
const BLIND_CORNER = join(ROOT, 'scenarios/blind-corner.yaml');
const PLATOON = join(ROOT, 'scenarios/platoon-cacc.yaml');
const BLIND_CORNER_BEACONS = join(ROOT, 'scenarios/blind-corner-beacons.yaml');
const runsDir = mkdtempSync(join(tmpdir(), 'cavsim-lockstep-runs-'));
beforeAll(() => real.assertPresent());
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

const run = (file: string, overrides: string[]) => runScenarioSimulated(file, { overrides, runsDir });
const v2vRows = (runDir: string) => parse(readFileSync(join(runDir, 'v2v.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
const CSVS = ['vehicles.csv', 'pairs.csv', 'collisions.csv', 'v2v.csv', 'events.csv'];

describe.skipIf(real.skip)('simulated runtime with ns-3 in lock-step', () => {
  it('head-on: the thesis verdicts at 10/100/200/300 ms, each brake message delivered when the builtin model delivers it (to 1 us)', async () => {
    for (const delay of [10, 100, 200, 300]) {
      const ns3 = await run(HEAD_ON, ['network.engine=ns3', `network.delay=${delay}ms`]);
      const builtin = await run(HEAD_ON, ['network.engine=builtin', `network.delay=${delay}ms`]);
      expect(ns3.summary.parameters.network.engine).toBe('ns3');
      expect(ns3.summary.status).toBe('completed');
      expect(ns3.summary.collision).toBe(delay === 300);
      expect(ns3.summary.collision).toBe(builtin.summary.collision);
      const [a] = v2vRows(ns3.runDir);
      const [b] = v2vRows(builtin.runDir);
      expect(a.outcome).toBe('delivered');
      expect(Math.abs(Number(a.received_s) - Number(b.received_s))).toBeLessThanOrEqual(1e-6);
      expect(ns3.summary.min_distance_m).toBeCloseTo(builtin.summary.min_distance_m!, 6);
    }
  });

  it('one seed gives byte-identical outputs (wifi, with walls, random 3GPP shadowing, two runs); another seed is another ns-3 run', async () => {
    const sets = [
      'network.propagation=3gpp-v2v-urban',
      'vehicles.car1.apps=[{type: beacon, rate: 50Hz, size: 600B}, {type: brake-receiver}]',
      'vehicles.car0.apps=[{type: beacon, rate: 50Hz, size: 600B}]',
    ];
    const a = await run(BLIND_CORNER, sets);
    const b = await run(BLIND_CORNER, sets);
    for (const f of CSVS) expect(readFileSync(join(a.runDir, f), 'utf8')).toBe(readFileSync(join(b.runDir, f), 'utf8'));
    const rows = v2vRows(a.runDir);
    expect(rows.length).toBeGreaterThan(300);
    expect(new Set(rows.map((r) => r.line_of_sight))).toEqual(new Set(['true', 'false']));
    const other = await run(BLIND_CORNER, [...sets, 'seed=2']);
    expect(readFileSync(join(other.runDir, 'v2v.csv'), 'utf8')).not.toBe(readFileSync(join(a.runDir, 'v2v.csv'), 'utf8'));
  });

  it('cars that only beacon: a run that does not wait for ns-3 each step writes what a run that waits writes (wifi, with walls)', async () => {
    const beacons = (car: string, extra = '') => `vehicles.${car}.apps=[{type: beacon, rate: 50Hz, size: 600B}${extra}]`;
    const onlyLogged = await run(BLIND_CORNER, ['network.propagation=3gpp-v2v-urban', beacons('car0'), beacons('car1')]);
    // a brake-receiver hears every beacon (and ignores it): this run waits for each step's outcomes
    const waiting = await run(BLIND_CORNER, [
      'network.propagation=3gpp-v2v-urban',
      beacons('car0', ', {type: brake-receiver}'),
      beacons('car1', ', {type: brake-receiver}'),
    ]);
    for (const f of CSVS) expect(readFileSync(join(onlyLogged.runDir, f), 'utf8'), f).toBe(readFileSync(join(waiting.runDir, f), 'utf8'));
    const rows = v2vRows(onlyLogged.runDir);
    expect(rows.length).toBeGreaterThan(300);
    expect(new Set(rows.map((r) => r.outcome)).size).toBeGreaterThan(1);
    expect(onlyLogged.summary.v2v).toEqual(waiting.summary.v2v);
  });

  it('blind corner: the walls block the brake message and the cars collide; without obstacles it arrives and they do not', async () => {
    const walls = await run(BLIND_CORNER, []);
    const open = await run(BLIND_CORNER, ['network.obstacles=none']);
    expect(walls.summary.collision).toBe(true);
    expect(open.summary.collision).toBe(false);
    const [blocked] = v2vRows(walls.runDir);
    expect(blocked).toMatchObject({ type: 'emergency-brake', line_of_sight: 'false' });
    expect(blocked.outcome).not.toBe('delivered');
    const [arrived] = v2vRows(open.runDir);
    expect(arrived.outcome).toBe('delivered');
    expect(Number(arrived.rx_power_dbm)).toBeGreaterThan(Number(blocked.rx_power_dbm));
  });

  it('platoon over ns-3: string stable without collision at 10 ms; colliding at 400 ms, where the delay sweep finds it', async () => {
    const fast = (await run(PLATOON, ['network.engine=ns3'])).summary;
    expect(fast.parameters.network.engine).toBe('ns3');
    expect(fast.collision).toBe(false);
    expect(fast.platoon!.string_stability!.stable).toBe(true);
    expect(fast.platoon!.followers).toHaveLength(5);
    expect(fast.min_gap_m!).toBeGreaterThan(1);
    const slow = (await run(PLATOON, ['network.engine=ns3', 'network.delay=400ms'])).summary;
    expect(slow.collision).toBe(true);
    expect(slow.platoon!.string_stability!.stable).toBe(false);
  });

  it('blind corner by beacons alone: the walls hide each car until too late (collision); in the open they stop in time', async () => {
    const walls = (await run(BLIND_CORNER_BEACONS, [])).summary;
    const open = (await run(BLIND_CORNER_BEACONS, ['network.obstacles=none'])).summary;
    expect(walls.collision).toBe(true);
    expect(open.collision).toBe(false);
    expect(open.min_gap_m!).toBeGreaterThan(3);
    // both braked on what the other's beacons said, later behind the walls
    const brakeAt = (s: typeof walls) => Math.min(...s.events.filter((e) => e.event === 'brake-sent').map((e) => e.t_s));
    expect(brakeAt(open)).toBeLessThan(brakeAt(walls));
    expect(walls.v2v.delivery_ratio!).toBeLessThan(open.v2v.delivery_ratio!);
  });
});
