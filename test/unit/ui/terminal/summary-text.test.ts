import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../../src/run/summary.js';
import { collisionText, counted, formatSummary, stringStabilityText, v2vCounts } from '../../../../src/ui/terminal/run/summary-text.js';

const base = {
  status: 'completed',
  collision: false,
  first_collision_t_s: null,
  collisions: [],
  sim_time_s: 6,
} as unknown as RunSummary;

describe('the printed summary says what it knows', () => {
  it('agrees in number: 1 message to 1 receiver, 2 messages to 2 receivers', () => {
    expect([counted(1, 'receiver'), counted(2, 'receiver'), counted(0, 'message')]).toEqual(['1 receiver', '2 receivers', '0 messages']);
    const one = { sent: 1, sent_pairs: 1, received: 1, lost: 0, delivery_ratio: 1 } as RunSummary['v2v'];
    expect(v2vCounts(one)).toBe('1 message to 1 receiver: 1 received, 0 lost, 100% delivered');
    expect(v2vCounts({ ...one, sent: 2, sent_pairs: 2, received: 2 })).toMatch(/^2 messages to 2 receivers:/);
  });

  it('claims no collision only for a run that ran to its end', () => {
    expect(collisionText(base)).toBe('no');
    expect(collisionText({ ...base, status: 'failed', sim_time_s: 2.5 })).toBe('none in the 2.50 s simulated before the run failed');
    expect(collisionText({ ...base, status: 'interrupted', sim_time_s: 1 })).toBe('none in the 1.00 s simulated before the run stopped');
    expect(collisionText({ ...base, status: 'failed', sim_time_s: 0 })).toBe('not known: the run never stepped');
    const hit = { ...base, status: 'failed', collision: true, first_collision_t_s: 1.2, collisions: [{ a: 'car0', b: 'car1' }] };
    expect(collisionText(hit as unknown as RunSummary)).toBe('yes, first at t=1.20 s (car0 / car1)');
  });

  it("prints a platoon's string stability: the worst ratio and whether it is stable", () => {
    const platoon = (ratios: (number | null)[]): RunSummary['platoon'] => ({
      followers: [],
      string_stability: {
        ratios: ratios.map((ratio, i) => ({ vehicle: `car${i + 2}`, ratio })),
        stable: ratios.every((r) => r !== null && r <= 1),
      },
    });
    expect(stringStabilityText(undefined)).toBeUndefined();
    expect(stringStabilityText(platoon([0.8, 1.02, 0.9]))).toBe(
      'UNSTABLE: worst gap-error ratio 1.02 (car3; stable at most 1) over 3 followers',
    );
    expect(stringStabilityText(platoon([0.5]))).toBe('stable: worst gap-error ratio 0.50 (car2; stable at most 1) over 1 follower');
    expect(stringStabilityText(platoon([null]))).toBe('not measured (no predecessor had a gap error)');
  });

  it('says "none" where there is no minimum TTC, never "- s"', () => {
    const summary = {
      ...base,
      run_id: 'r',
      runtime: 'sim',
      scenario: 's',
      seed: 1,
      wall_time_s: 0.1,
      min_ttc_s: null,
      min_distance_m: 3,
      v2v: { sent: 0, received: 0, lost: 0, p50_ms: null, p99_ms: null, max_ms: null },
      events: [],
      platoon: {
        followers: [],
        string_stability: {
          ratios: [{ vehicle: 'car2', ratio: 1.02 }],
          stable: false,
        },
      },
    } as unknown as RunSummary;
    const text = formatSummary(summary, '/runs/r');
    expect(text).toMatch(/min TTC +none \(no two cars ever closed on each other\)/);
    expect(text).not.toMatch(/- s/);
    expect(text).toMatch(/platoon +string UNSTABLE: worst gap-error ratio 1\.02/);
  });
});
