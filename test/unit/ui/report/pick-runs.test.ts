import { describe, expect, it } from 'vitest';
import type { CriticalSearchResult } from '../../../../src/sweep/critical.js';
import type { SweepResult } from '../../../../src/sweep/result-row.js';
import type { SweepSpec } from '../../../../src/sweep/sweep-folder.js';
import { pickKinematicsRuns } from '../../../../src/ui/report/pick-runs.js';

const spec = (mode: SweepSpec['mode'] = { type: 'grid' } as SweepSpec['mode']) =>
  ({ axes: [{ path: 'network.loss' }], mode, repeat: 1 }) as unknown as SweepSpec;

/** A loss sweep 0, 0.1, ... whose runs collide from `firstCollided` on. */
function lossSweep(values: number[], firstCollided: number): SweepResult[] {
  return values.map(
    (v, i) =>
      ({
        id: `p${i}`,
        repeat: 0,
        seed: 1,
        values: { 'network.loss': { text: String(v), value: v, unit: '' } },
        runDir: `runs/p${i}`,
        status: 'completed',
        collision: v >= firstCollided,
      }) as unknown as SweepResult,
  );
}
const losses = (rs: SweepResult[]) => rs.map((r) => r.values['network.loss'].value);

describe("the runs of a sweep's kinematics overview", () => {
  it('keeps the first value that collided and the last that did not, which an even spread stepped over', () => {
    // ten values, as `--set network.loss=0..0.9` gives: an even pick of six took 0, 0.2, 0.4, 0.5, 0.7, 0.9
    const values = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
    const { picked, leftOut } = pickKinematicsRuns(spec(), lossSweep(values, 0.3), undefined);
    expect(picked).toHaveLength(6);
    expect(losses(picked)).toContain(0.3);
    expect(losses(picked)).toContain(0.2);
    expect(losses(picked)[0]).toBe(0);
    expect(losses(picked).at(-1)).toBe(0.9);
    expect(losses(picked)).toEqual([...losses(picked)].sort((a, b) => a! - b!));
    expect(leftOut).toHaveLength(4);
    expect([...leftOut, ...losses(picked).map(String)].sort()).toEqual(values.map(String).sort());
  });

  it('draws every value when there are six or fewer', () => {
    const { picked, leftOut } = pickKinematicsRuns(spec(), lossSweep([0, 0.2, 0.4, 0.6, 0.8], 0.4), undefined);
    expect(losses(picked)).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    expect(leftOut).toEqual([]);
  });

  it("finds a critical search's bracket even when its floats differ in the last bits", () => {
    const values = [0, 0.25, 0.5, 0.625, 0.65, 0.675, 0.6875, 0.7, 0.75, 1];
    const critical = {
      status: 'found',
      path: 'network.loss',
      lastSafe: 0.6750000000000001,
      firstCollision: 0.6875,
      unit: '',
    } as unknown as CriticalSearchResult;
    const { picked } = pickKinematicsRuns(
      spec({ type: 'critical', path: 'network.loss' } as SweepSpec['mode']),
      lossSweep(values, 0.6875),
      critical,
    );
    expect(losses(picked)).toEqual([0, 0.675, 0.6875, 1]);
  });
});
