import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkChannel } from '../../../src/api/check-channel.js';
import type { RunOutcome, RunScenarioOptions } from '../../../src/api/run-simulated.js';
import type { FrameOutcome } from '../../../src/channel/outcome-tally.js';
import { UserInputError } from '../../../src/errors.js';
import { ChannelBusyLog, measuredCbr } from '../../../src/measurement/channel-busy-log.js';
import { writeDeliveryDistance } from '../../../src/run/delivery-distance-file.js';
import { FleetV2v } from '../../../src/run/fleet-v2v.js';
import type { RunSummary } from '../../../src/run/summary.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WIFI = join(ROOT, 'test/cli/fixtures/parked-line-beacons.yaml');
const work = mkdtempSync(join(tmpdir(), 'cavsim-check-fleet-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Two broadcasts from car0 to receivers 20 m apart; `fate(k)` is the outcome at k * 20 m. */
const counted = (fate: (k: number) => FrameOutcome) => {
  const fleet = new FleetV2v('v2v.csv not written: 500 cars');
  for (let k = 1; k <= 9; k++) {
    fleet.tally.add(fate(k), k * 20, 0.0005);
    fleet.tally.add('delivered', k * 20, 0.0005);
  }
  return fleet;
};

/** A runner whose runs are fleet runs: delivery-distance.csv and no v2v.csv. */
function fleetRunner(tallies: Record<string, FleetV2v>) {
  return async (_file: string, opts: RunScenarioOptions): Promise<RunOutcome> => {
    const runDir = join(opts.runsDir!, opts.runId!);
    mkdirSync(runDir, { recursive: true });
    writeDeliveryDistance(join(runDir, 'delivery-distance.csv'), tallies[opts.runId!].tally);
    return { summary: { status: 'completed', exit_status: 0, v2v: {} } as unknown as RunSummary, runDir };
  };
}

describe('checkChannel on fleet runs (no v2v.csv)', () => {
  const run = fleetRunner({
    builtin: counted((k) => (k <= 3 ? 'delivered' : 'below-sensitivity')),
    ns3: counted((k) => (k <= 2 ? 'delivered' : k === 3 ? 'collision' : 'below-sensitivity')),
  });

  it('reads each run’s table from its delivery-distance.csv, as from v2v.csv’s rows', async () => {
    const r = await checkChannel(WIFI, { checksDir: work, checkId: 'fleet', runSimulated: run, binWidth: 50, maxDistance: 200 });
    expect(r.runs.map((x) => [x.engine, x.frames])).toEqual([
      ['builtin', 18],
      ['ns3', 18],
    ]);
    const [builtin, ns3] = r.runs.map((x) => x.table.bins[1]);
    expect(builtin).toMatchObject({ from: 50, to: 100, frames: 4, delivery: 0.75, losses: { 'below-sensitivity': 0.25 } });
    expect(ns3).toMatchObject({ frames: 4, delivery: 0.5, losses: { collision: 0.25, 'below-sensitivity': 0.25 } });
    expect(r.deviation).toEqual({ bins: 4, delivery: 0.0625, losses: { 'below-sensitivity': 0, collision: 0.0625 } });
  });

  it('bins that do not fall on the counts’ 10 m are refused, saying which to give', async () => {
    const err = await checkChannel(WIFI, { checksDir: work, checkId: 'fleet-25', runSimulated: run, binWidth: 25 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UserInputError);
    expect((err as UserInputError).message).toMatch(/counted in 10 m bins: the bin width \(25 m\) .* must be multiples of 10 m/);
    expect((err as UserInputError).hint).toMatch(/--bin and --max-distance in multiples of 10 m, or set record\.v2v: true/);
    // a scenario that runs as a fleet is refused before anything runs
    const calls: string[] = [];
    const early = await checkChannel(WIFI, {
      checksDir: work,
      checkId: 'fleet-early',
      overrides: ['record.v2v=false'],
      runSimulated: async (file, opts) => (calls.push(opts.runId!), run(file, opts)),
      maxDistance: 205,
    }).catch((e: unknown) => e);
    expect((early as UserInputError).message).toMatch(/the range \(205 m\) must be multiples of 10 m/);
    expect(calls).toEqual([]);
    expect(existsSync(join(work, 'fleet-early'))).toBe(false);
  });

  it("compares the CBR of every car, from cbr.csv, when the summaries list only a fleet's busiest cars", async () => {
    const cars = Array.from({ length: 120 }, (_, k) => `car${String(k).padStart(3, '0')}`);
    // builtin: car k senses k/1000; ns3: 0.01 more at every car
    const samples = (extra: number) => cars.map((car, k) => ({ car, start: 0, end: 0.1, busyRatio: k / 1000 + extra }));
    const withCbr =
      (extra: number) =>
      async (file: string, opts: RunScenarioOptions): Promise<RunOutcome> => {
        const outcome = await run(file, { ...opts, runId: extra ? 'ns3' : 'builtin' });
        const log = new ChannelBusyLog(join(outcome.runDir, 'cbr.csv'));
        log.add(samples(extra));
        log.close();
        const summary = { ...outcome.summary, v2v: { cbr: measuredCbr(samples(extra)) } } as unknown as RunSummary;
        return { summary, runDir: outcome.runDir };
      };
    let calls = 0;
    const runner = (file: string, opts: RunScenarioOptions) => withCbr(calls++ ? 0.01 : 0)(file, opts);
    const r = await checkChannel(WIFI, { checksDir: work, checkId: 'fleet-cbr', runSimulated: runner, binWidth: 50, maxDistance: 200 });
    expect(r.runs[0].cbr?.per_car).toHaveLength(120);
    expect(r.cbrDeviation).toEqual({ mean: 0.01, perCar: 0.01 });
  });
});
