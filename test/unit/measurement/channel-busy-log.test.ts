import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChannelBusySample } from '../../../src/channel/frames.js';
import { ChannelBusyLog, carCbr, measuredCbr } from '../../../src/measurement/channel-busy-log.js';
import { Recorder } from '../../../src/measurement/recorder.js';
import { readCarCbr } from '../../../src/run/cbr-file.js';
import { recorderFiles } from '../../../src/run/run-files.js';
import { buildSummary } from '../../../src/run/summary.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cavsim-cbr-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sample = (car: string, k: number, busyRatio: number): ChannelBusySample => ({
  car,
  start: +(k * 0.1).toFixed(1),
  end: +((k + 1) * 0.1).toFixed(1),
  busyRatio,
});
// car0 sees 0.1, 0.2, 0.3; car1 sees 0.4, 0.5, 0.6
const SAMPLES = [0.1, 0.2, 0.3].flatMap((r, k) => [sample('car1', k, r + 0.3), sample('car0', k, r)]);

describe('measured CBR figures (summary.json v2v.cbr)', () => {
  it('mean, interpolated p95 and max over every car and window; each car by name with its mean and max', () => {
    const f = measuredCbr(SAMPLES)!;
    expect(f).toMatchObject({ method: 'medium-state', window_s: 0.1, windows: 6, mean: 0.35, max: 0.6 });
    // sorted 0.1 .. 0.6: position 4.75 of 0..5 lies between 0.5 and 0.6
    expect(f.p95).toBeCloseTo(0.575, 6);
    expect(f.per_car).toEqual([
      { vehicle: 'car0', mean: 0.2, max: 0.3 },
      { vehicle: 'car1', mean: 0.5, max: 0.6 },
    ]);
  });

  it("above 100 cars lists the 5 busiest (highest mean first), the cars' count and the spread of their means; cbr.csv gives every car back", () => {
    // car000 .. car119: car k's windows are k/1000 and k/500
    const many = Array.from({ length: 120 }, (_, k) => [
      sample(`car${String(k).padStart(3, '0')}`, 0, k / 1000),
      sample(`car${String(k).padStart(3, '0')}`, 1, k / 500),
    ]).flat();
    const f = measuredCbr(many)!;
    expect(f.per_car.map((c) => c.vehicle)).toEqual(['car119', 'car118', 'car117', 'car116', 'car115']);
    expect(f.per_car[0]).toEqual({ vehicle: 'car119', mean: 0.1785, max: 0.238 });
    expect(f.cars).toBe(120);
    expect(f.car_means).toEqual({ min: 0, p50: 0.08925, max: 0.1785 });
    expect(f.per_car_listed).toBe("the 5 busiest of 120 cars; every car's windows are in cbr.csv");
    expect(carCbr(many)).toHaveLength(120);
    // the 100 cars of a small fleet are all listed, without the fields of a compacted list
    const hundred = measuredCbr(many.filter((s) => Number(s.car.slice(3)) < 100))!;
    expect(hundred.per_car).toHaveLength(100);
    expect(Object.keys(hundred)).not.toContain('cars');
    const dir = mkdtempSync(join(work, 'many-'));
    const log = new ChannelBusyLog(join(dir, 'cbr.csv'));
    log.add(many);
    log.close();
    expect(readCarCbr(join(dir, 'cbr.csv'))).toEqual(carCbr(many));
  });

  it('is absent without samples', () => {
    expect(measuredCbr([])).toBeUndefined();
  });
});

describe('cbr.csv', () => {
  it('is made on the first sample, rows in the order the channel gave them, written on flush', () => {
    const dir = mkdtempSync(join(work, 'log-'));
    const file = join(dir, 'cbr.csv');
    const log = new ChannelBusyLog(file);
    log.add([]);
    expect(existsSync(file)).toBe(false);
    log.add(SAMPLES.slice(0, 2));
    expect(readFileSync(file, 'utf8')).toBe('t_start_s,t_end_s,vehicle,cbr\n');
    log.flush();
    expect(readFileSync(file, 'utf8')).toBe('t_start_s,t_end_s,vehicle,cbr\n0,0.1,car1,0.4\n0,0.1,car0,0.1\n');
    log.close();
    // a late window after the run closed its logs is dropped, not written to a closed file
    log.add(SAMPLES.slice(2));
    expect(log.samples).toHaveLength(2);
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(4);
  });

  it('a recorder writes it with its other logs, and summary.json carries v2v.cbr; a run with no samples has neither', async () => {
    const scenario = await loadScenario(join(ROOT, 'scenarios/head-on-brake.yaml'), { runtime: 'sim' });
    const summaryOf = (recorder: Recorder) =>
      buildSummary({ runId: 'r', runtime: 'sim', scenario, recorder, simTime: 0.3, steps: 30, wallTime: 0.01, status: 'completed' });

    const withRadio = mkdtempSync(join(work, 'radio-'));
    const recorder = new Recorder(recorderFiles(withRadio), ['car0', 'car1'], { everySteps: 1 });
    recorder.recordChannelBusy(SAMPLES);
    recorder.flush();
    const rows = readFileSync(join(withRadio, 'cbr.csv'), 'utf8').trim().split('\n');
    expect(rows).toHaveLength(7);
    expect(rows[6]).toBe('0.2,0.3,car0,0.3');
    expect(summaryOf(recorder).v2v.cbr).toEqual(measuredCbr(SAMPLES));
    recorder.close();

    const wired = mkdtempSync(join(work, 'wired-'));
    const plain = new Recorder(recorderFiles(wired), ['car0', 'car1']);
    plain.recordChannelBusy([]);
    plain.close();
    expect(existsSync(join(wired, 'cbr.csv'))).toBe(false);
    expect(existsSync(join(wired, 'v2v.csv'))).toBe(true);
    expect(summaryOf(plain).v2v).not.toHaveProperty('cbr');
  });
});
