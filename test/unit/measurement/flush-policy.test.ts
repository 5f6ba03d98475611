import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CarSample, Recorder } from '../../../src/measurement/recorder.js';

const root = mkdtempSync(join(tmpdir(), 'cavsim-flush-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const car = (x: number): CarSample => ({
  name: 'car0',
  x,
  y: 0,
  yaw: 0,
  v: 1,
  steer: 0,
  yawRate: 0,
  cmdSpeed: 1,
  cmdSteer: 0,
  braking: false,
  collided: false,
});

function recorderWithClock(name: string) {
  const dir = join(root, name);
  const files = { vehicles: 'vehicles.csv', pairs: 'pairs.csv', collisions: 'collisions.csv', v2v: 'v2v.csv', events: 'events.csv' };
  const paths = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, join(mkdtempSync(dir), f)])) as typeof files;
  const clock = { ms: 0 };
  const recorder = new Recorder(paths, ['car0'], { everySteps: 10, atLeastMsApart: 20, now: () => clock.ms });
  const rowsOnDisk = () => readFileSync(paths.vehicles, 'utf8').trim().split('\n').length - 1;
  return { recorder, clock, rowsOnDisk };
}

describe('when the per-step rows reach their files', () => {
  it('waits for both the steps and the wall time: a fast run writes every 20 ms, a slow one every 10 steps', () => {
    const { recorder, clock, rowsOnDisk } = recorderWithClock('a');
    clock.ms = 25;
    for (let k = 0; k < 9; k++) recorder.recordStep(k * 0.01, [car(k)]);
    expect(rowsOnDisk()).toBe(0); // 9 steps: not yet, whatever the clock says
    recorder.recordStep(0.09, [car(9)]);
    expect(rowsOnDisk()).toBe(10); // 10 steps and 25 ms since the start

    for (let k = 10; k < 40; k++) recorder.recordStep(k * 0.01, [car(k)]);
    expect(rowsOnDisk()).toBe(10); // 30 more steps within the same millisecond: held
    clock.ms = 45;
    recorder.recordStep(0.4, [car(40)]);
    expect(rowsOnDisk()).toBe(41);

    clock.ms = 1000; // slow steps: every 10th writes
    for (let k = 41; k < 50; k++) recorder.recordStep(k * 0.01, [car(k)]);
    expect(rowsOnDisk()).toBe(41);
    recorder.recordStep(0.5, [car(50)]);
    expect(rowsOnDisk()).toBe(51);
    recorder.close();
  });

  it('writes every step by default (the emulated runtime)', () => {
    const dir = mkdtempSync(join(root, 'b'));
    const files = { vehicles: 'vehicles.csv', pairs: 'pairs.csv', collisions: 'collisions.csv', v2v: 'v2v.csv', events: 'events.csv' };
    const paths = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, join(dir, f)])) as typeof files;
    const recorder = new Recorder(paths, ['car0']);
    recorder.recordStep(0, [car(0)]);
    expect(readFileSync(paths.vehicles, 'utf8').trim().split('\n')).toHaveLength(2);
    recorder.close();
  });
});
