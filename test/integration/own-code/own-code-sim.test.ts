import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { runScenarioSimulated } from '../../../src/api/run-simulated.js';
import { stationIdOf } from '../../../src/core/v2x/networking/station-id.js';
import { UserInputError } from '../../../src/errors.js';
import { writeCamSpeakerScenario } from '../../support/own-code/cam-speaker-scenario.js';

/**
 * Your own vehicle code in virtual time, with real processes: the Python example drives car0 and
 * the Node.js example car1 (scenarios/own-code-head-on.yaml), each a process on this host in
 * lock-step with the physics through its own control link, V2V through the run's channel.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCENARIO = join(ROOT, 'scenarios/own-code-head-on.yaml');
const MISBEHAVING = join(ROOT, 'test/support/own-code/misbehaving-vehicle.mjs');
const CLI = join(ROOT, 'dist/cli/main.js');
const workDir = mkdtempSync(join(tmpdir(), 'cavsim-own-code-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const SIMULATION_FILES = ['vehicles.csv', 'pairs.csv', 'v2v.csv', 'events.csv', 'collisions.csv'];
const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Record<string, string>[];
const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
/** The summary without what the host measured (wall time, compute costs) and the run's id. */
const simulated = (s: Record<string, unknown>) => ({ ...s, run_id: undefined, wall_time_s: undefined, timing: undefined });
const runningCopies = (needle: string) => spawnSync('pgrep', ['-f', needle], { encoding: 'utf8' }).stdout.trim();

describe('own vehicle code in the simulated runtime (Python and Node.js processes)', () => {
  it('runs twice byte-identical, faster than real time, with the thesis verdict and V2V through the channel', async () => {
    const a = await runScenarioSimulated(SCENARIO, { runsDir: workDir, runId: 'own-a' });
    const b = await runScenarioSimulated(SCENARIO, { runsDir: workDir, runId: 'own-b' });
    const thesis = await runScenarioSimulated(join(ROOT, 'scenarios/head-on-brake.yaml'), { runsDir: workDir, runId: 'builtin' });
    console.log(
      `[own-code] ${a.summary.sim_time_s} s simulated in ${a.summary.wall_time_s} s and ${b.summary.wall_time_s} s; compute ${JSON.stringify(a.summary.timing)}`,
    );

    for (const run of [a, b]) {
      expect(run.summary.status, run.summary.reason).toBe('completed');
      expect(run.summary.collision).toBe(false);
      // The issue's bar, kept loose (the figure itself is in `npm run bench`): this run is ~4x faster than real time here.
      expect(run.summary.wall_time_s).toBeLessThan(run.summary.sim_time_s);
    }
    for (const f of SIMULATION_FILES) expect(readFileSync(join(b.runDir, f), 'utf8'), f).toBe(readFileSync(join(a.runDir, f), 'utf8'));
    expect(simulated(summaryOf(b.runDir))).toEqual(simulated(summaryOf(a.runDir)));

    // The same protocol as cavsim's own apps: the same brake times and the same minimum distance.
    expect(a.summary.min_distance_m).toBe(thesis.summary.min_distance_m);
    const events = rows(a.runDir, 'events.csv').map((e) => `${e.t_s} ${e.vehicle} ${e.event}`);
    expect(events).toEqual(['1.3 car0 brake-sent', '1.3 car0 emergency-brake', '1.32 car1 brake-received', '1.32 car1 emergency-brake']);
    const v2v = rows(a.runDir, 'v2v.csv');
    expect(v2v).toHaveLength(1);
    expect(v2v[0]).toMatchObject({ from: 'car0', to: 'car1', type: 'emergency-brake', outcome: 'delivered', sent_s: '1.3' });
    expect(Number(v2v[0].latency_ms)).toBeCloseTo(10, 0);

    // Every tick of each car was answered, costed and logged.
    const compute = rows(a.runDir, 'compute.csv');
    expect(compute.filter((r) => r.vehicle === 'car0')).toHaveLength(500);
    expect(compute.every((r) => Number(r.answer_ms) > 0 && r.applied_ms === '0')).toBe(true);
    expect(compute.some((r) => r.cpu_ms !== '')).toBe(true);
    expect((a.summary.timing as { compute: Record<string, { ticks: number }> }).compute.car1.ticks).toBe(500);
    const log = readFileSync(join(a.runDir, 'logs', 'car0.log'), 'utf8');
    expect(log).toMatch(/car0: stop \(end of run\) after 500 drive commands/);
    expect(runningCopies('own-code-head-on|containers/examples/.*vehicle')).toBe('');
  });

  it('turns the safe head-on run into a collision when car0 computes 300 ms per tick (fixed), the same each time', async () => {
    const overrides = ['vehicles.car0.compute.model=fixed', 'vehicles.car0.compute.fixed=300ms'];
    const run = await runScenarioSimulated(SCENARIO, { runsDir: workDir, overrides });
    const again = await runScenarioSimulated(SCENARIO, { runsDir: workDir, overrides });
    for (const f of SIMULATION_FILES)
      expect(readFileSync(join(again.runDir, f), 'utf8'), f).toBe(readFileSync(join(run.runDir, f), 'utf8'));
    expect(run.summary.status).toBe('completed');
    expect(run.summary.collision).toBe(true);
    const brake = rows(run.runDir, 'v2v.csv')[0];
    // The decision is made at 1.30 s and leaves the car 300 ms later, as its brake command does.
    expect(Number(brake.sent_s)).toBeCloseTo(1.6, 6);
    expect(
      rows(run.runDir, 'compute.csv')
        .filter((r) => r.vehicle === 'car0')
        .every((r) => r.applied_ms === '300'),
    ).toBe(true);
  });

  it('names a vehicle that stops answering, ends the run failed within its timeout, and ends its process', async () => {
    const run = await runScenarioSimulated(SCENARIO, {
      runsDir: workDir,
      overrides: [`vehicles.car1.command=[node,${MISBEHAVING},--from-tick,"57"]`, 'vehicles.car1.compute.timeout=1s'],
    });
    expect(run.summary.status).toBe('failed');
    expect(run.summary.exit_status).toBe(5);
    expect(run.summary.failed_component?.component).toMatch(/^vehicle car1 \(own code/);
    expect(run.summary.reason).toMatch(/did not answer tick 57 within 1 s of wall-clock time at t=0\.57 s/);
    // What was measured until then is kept.
    expect(run.summary.sim_time_s).toBeCloseTo(0.57, 6);
    expect(rows(run.runDir, 'vehicles.csv').length).toBeGreaterThan(100);
    expect(runningCopies('misbehaving-vehicle.mjs')).toBe('');
  });

  it('names a vehicle whose code exits, with its status and last log lines', async () => {
    const run = await runScenarioSimulated(SCENARIO, {
      runsDir: workDir,
      overrides: [`vehicles.car1.command=[node,${MISBEHAVING},--from-tick,"20",--crash,"3"]`],
    });
    expect(run.summary.status).toBe('failed');
    expect(run.summary.failed_component).toMatchObject({ exit_status: 3, signal: null });
    expect(run.summary.failed_component?.last_log_lines.join('\n')).toMatch(/crashing on purpose at tick 20/);
    expect(run.summary.reason).toMatch(/vehicle car1 \(own code.*exited with status 3 at t=0\.20 s/);
  });

  it('refuses a command whose program is not there, naming the field, exit 2, creating nothing', async () => {
    const runsDir = join(workDir, 'refused');
    const error = await runScenarioSimulated(SCENARIO, { runsDir, overrides: ['vehicles.car1.command=[no-such-vehicle-program]'] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UserInputError);
    expect((error as Error).message).toBe('vehicles.car1.command: program "no-such-vehicle-program" not found on PATH, or not executable');
    const cli = spawnSync(
      'node',
      [CLI, 'up', SCENARIO, '--runtime', 'sim', '--runs-dir', runsDir, '--set', 'vehicles.car0.command=[./missing.py]'],
      { encoding: 'utf8' },
    );
    expect(cli.status, cli.stderr).toBe(2);
    expect(cli.stderr).toContain('vehicles.car0.command: program "./missing.py" not found in');
    expect(existsSync(runsDir) ? readdirSync(runsDir) : []).toEqual([]);
  });
});

describe('own code speaks standard messages through the control protocol (simulated runtime)', () => {
  const CAM_SPEAKER = join(ROOT, 'test/support/own-code/cam-speaker.mjs');
  const scenario = (forge: string[]) =>
    writeCamSpeakerScenario(join(workDir, `cam-speaker-${forge.length}.yaml`), [
      `command: [node, ${CAM_SPEAKER}${forge.map((a) => `, ${a}`).join('')}]`,
    ]);

  it("sends its own CAMs as GN packets (delivered as any CAM, of the packet's size), and gets the other car's CAMs raw as well as decoded", async () => {
    const run = await runScenarioSimulated(scenario([]), { runsDir: workDir, mcapByDefault: false });
    expect(run.summary.status, run.summary.reason).toBe('completed');
    const v2v = rows(run.runDir, 'v2v.csv');
    const mine = v2v.filter((r) => r.from === 'car0');
    expect(mine.map((r) => r.sent_s)).toEqual(['0.5', '1.5', '2.5']);
    for (const r of mine) expect(r).toMatchObject({ type: 'cam', outcome: 'delivered', to: 'car1' });
    // the size of a CAM is its GN packet's, as for a cavsim app's
    expect(Number(mine[0].size_bytes)).toBeGreaterThan(80);
    const heard = rows(run.runDir, 'events.csv').filter((e) => e.event === 'cam-heard');
    expect(heard.length).toBeGreaterThan(2);
    for (const e of heard) {
      const d = JSON.parse(e.detail);
      expect(d).toMatchObject({ from: 'car1', station: stationIdOf('car1'), body_station: stationIdOf('car1') });
    }
    expect(run.summary.events.some((e) => e.event === 'v2v-refused')).toBe(false);
  });

  it("refuses a packet that claims another car's station, saying so, and sends the rest", async () => {
    const run = await runScenarioSimulated(scenario(['--forge-as', 'car1']), { runsDir: workDir, mcapByDefault: false });
    expect(run.summary.status, run.summary.reason).toBe('completed');
    const refused = run.summary.events.filter((e) => e.event === 'v2v-refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ vehicle: 'car0', t_s: 0.5 });
    expect(String(refused[0].detail?.reason)).toBe(
      `its GN source is station ${stationIdOf('car1')}, not car0's station ${stationIdOf('car0')}`,
    );
    expect(
      rows(run.runDir, 'v2v.csv')
        .filter((r) => r.from === 'car0')
        .map((r) => r.sent_s),
    ).toEqual(['1.5', '2.5']);
  });
});
