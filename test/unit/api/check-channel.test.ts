import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type ChannelCheckOptions, checkChannel } from '../../../src/api/check-channel.js';
import type { RunOutcome, RunScenarioOptions } from '../../../src/api/run-simulated.js';
import { EXIT_STATUS, exitStatusOf, UserInputError } from '../../../src/errors.js';
import type { MeasuredCbr } from '../../../src/measurement/channel-busy-log.js';
import type { RunSummary } from '../../../src/run/summary.js';
import { formatChannelCheck } from '../../../src/ui/terminal/check/channel-check-text.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WIFI = join(ROOT, 'test/cli/fixtures/parked-line-beacons.yaml');
const work = mkdtempSync(join(tmpdir(), 'cavsim-check-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HEADER = 'id,from,to,type,sent_s,received_s,latency_ms,size_bytes,outcome,distance_m,line_of_sight,rx_power_dbm';
const CARS = Array.from({ length: 10 }, (_, k) => `car${k}`);
/** A broadcast from car0 to the nine others, at 20 m per car; `fate(k)` is car k's outcome. */
const broadcast = (id: string, fate: (k: number) => string) =>
  CARS.slice(1).map(
    (to, i) => `${id},car0,${to},beacon,0.1,${fate(i + 1) === 'delivered' ? '0.1005' : ''},,300,${fate(i + 1)},${(i + 1) * 20},,`,
  );
const cbr = (mean: number): MeasuredCbr => ({
  method: 'medium-state',
  window_s: 0.1,
  windows: 20,
  mean,
  p95: mean,
  max: mean,
  per_car: [{ vehicle: 'car0', mean, max: mean }],
});

/** A runner that writes each engine's v2v.csv as given and answers with a summary of `status`. */
function fakeRunner(runs: Record<string, { rows: string[]; status?: RunSummary['status']; cbr?: MeasuredCbr }>) {
  const calls: RunScenarioOptions[] = [];
  const run = async (_file: string, opts: RunScenarioOptions): Promise<RunOutcome> => {
    calls.push(opts);
    const engine = opts.runId!;
    const runDir = join(opts.runsDir!, engine);
    mkdirSync(runDir, { recursive: true });
    const { rows, status = 'completed', cbr: measured } = runs[engine];
    writeFileSync(join(runDir, 'v2v.csv'), `${[HEADER, ...rows].join('\n')}\n`);
    const summary = {
      status,
      exit_status: status === 'completed' ? 0 : 5,
      ...(status === 'completed' ? {} : { reason: 'ns-3 channel exited' }),
      v2v: measured ? { cbr: measured } : {},
    } as unknown as RunSummary;
    return { summary, runDir };
  };
  return { calls, run };
}

const check = (id: string, runSimulated: ChannelCheckOptions['runSimulated'], extra: Partial<ChannelCheckOptions> = {}) =>
  checkChannel(WIFI, { checksDir: work, checkId: id, runSimulated, ...extra });

// builtin: everything within 60 m arrives, beyond it below sensitivity; ns-3 also loses the 60 m one to a collision
const BUILTIN = [...broadcast('a', (k) => (k <= 3 ? 'delivered' : 'below-sensitivity')), ...broadcast('b', () => 'delivered')];
const NS3 = [
  ...broadcast('a', (k) => (k <= 2 ? 'delivered' : k === 3 ? 'collision' : 'below-sensitivity')),
  ...broadcast('b', () => 'delivered'),
];

describe('checkChannel', () => {
  it('runs the builtin engine then ns-3 into the check folder, and compares delivery and CBR bin by bin', async () => {
    const fake = fakeRunner({ builtin: { rows: BUILTIN, cbr: cbr(0.1) }, ns3: { rows: NS3, cbr: cbr(0.12) } });
    const r = await check('both', fake.run, { overrides: ['seed=3'], binWidth: 50, maxDistance: 200 });
    expect(fake.calls.map((c) => [c.runId, c.overrides, c.runsDir, c.mcapByDefault])).toEqual([
      ['builtin', ['seed=3', 'network.engine=builtin'], join(work, 'both', 'runs'), false],
      ['ns3', ['seed=3', 'network.engine=ns3'], join(work, 'both', 'runs'), false],
    ]);
    expect(r.runs.map((run) => [run.engine, run.status, run.frames])).toEqual([
      ['builtin', 'completed', 18],
      ['ns3', 'completed', 18],
    ]);
    // bin 50-100 m holds the receivers at 60 and 80 m (100 m starts the next bin) of both frames
    const [builtin, ns3] = r.runs.map((run) => run.table.bins[1]);
    expect(builtin).toMatchObject({ from: 50, to: 100, frames: 4, delivery: 0.75, losses: { 'below-sensitivity': 0.25 } });
    expect(ns3).toMatchObject({ frames: 4, delivery: 0.5, losses: { collision: 0.25, 'below-sensitivity': 0.25 } });
    // bins 0-50 and 100-150 agree; 50-100 differs by 0.25; 150-200 agrees: 0.25 / 4
    expect(r.deviation).toEqual({ bins: 4, delivery: 0.0625, losses: { 'below-sensitivity': 0, collision: 0.0625 } });
    expect(r.cbrDeviation).toEqual({ mean: 0.02, perCar: 0.02 });
    expect(r.exitStatus).toBe(0);
    const csv = readFileSync(join(work, 'both', 'channel-check.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toBe(
      'from_m,to_m,builtin_frames,builtin_delivery,builtin_below-sensitivity,builtin_collision,ns3_frames,ns3_delivery,ns3_below-sensitivity,ns3_collision',
    );
    expect(csv[2]).toBe('50,100,4,0.75,0.25,0,4,0.5,0.25,0.25');
    const saved = JSON.parse(readFileSync(join(work, 'both', 'channel-check.json'), 'utf8'));
    expect(saved.deviation.delivery).toBe(0.0625);
    // keys as summary.json spells them; loss reasons keep their names
    expect(saved.cbr_deviation).toEqual({ mean: 0.02, per_car: 0.02 });
    expect(saved.runs[1].table.bins[1].losses).toEqual({ 'below-sensitivity': 0.25, collision: 0.25 });

    const text = formatChannelCheck(r);
    expect(text).toMatch(/each cell builtin \/ ns-3/);
    expect(text).toMatch(/^50-100 +4 \/ 4 +0\.750 \/ 0\.500 +0\.250 \/ 0\.250 +0\.000 \/ 0\.250$/m);
    expect(text).toMatch(/^CBR mean 0\.100 \/ 0\.120$/m);
    expect(text).toMatch(/^delivery MAD 0\.063, over 4 bins$/m);
  });

  it('--max-mad: over the bound the check exits 1 and says which figure; within it, 0', async () => {
    const fake = fakeRunner({ builtin: { rows: BUILTIN, cbr: cbr(0.1) }, ns3: { rows: NS3, cbr: cbr(0.12) } });
    const over = await check('over', fake.run, { binWidth: 50, maxDistance: 200, maxMad: 0.03 });
    expect(over.exitStatus).toBe(1);
    expect(over.exceeded).toEqual(['delivery MAD 0.0625 > 0.03']);
    expect(formatChannelCheck(over)).toMatch(/delivery MAD 0\.063 \(bound 0\.03\)[\s\S]*over the bound: delivery MAD 0\.0625 > 0\.03/);
    const within = await check('within', fake.run, { binWidth: 50, maxDistance: 200, maxMad: 0.1 });
    expect([within.exitStatus, within.exceeded]).toEqual([0, []]);
  });

  it('a run that failed gives the check its exit status, and the text says why', async () => {
    const fake = fakeRunner({ builtin: { rows: BUILTIN }, ns3: { rows: [], status: 'failed' } });
    const r = await check('failed', fake.run, { maxMad: 0.03 });
    expect(r.exitStatus).toBe(5);
    expect(r.cbrDeviation).toBeNull();
    const text = formatChannelCheck(r);
    expect(text).toMatch(/ns-3: +\S+ \(failed: ns-3 channel exited, 0 frames\)/);
    expect(text).toMatch(/^delivery MAD: no distance bin has frames in both runs$/m);
    expect(text).toMatch(/^CBR mean not measured \/ not measured$/m);
  });

  it('refuses a scenario whose channel is not wifi-80211p, naming network.channel and the fix, before any folder exists', async () => {
    const fake = fakeRunner({});
    const err = await checkChannel(join(ROOT, 'scenarios/head-on-brake.yaml'), {
      checksDir: work,
      checkId: 'csma',
      runSimulated: fake.run,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserInputError);
    expect(exitStatusOf(err)).toBe(EXIT_STATUS.USER_INPUT);
    expect((err as UserInputError).message).toMatch(/network\.channel is csma; check channel compares the two engines of wifi-80211p/);
    expect((err as UserInputError).hint).toMatch(/network\.channel: wifi-80211p/);
    expect(fake.calls).toEqual([]);
    expect(existsSync(join(work, 'csma'))).toBe(false);
  });
});
