import { describe, expect, it } from 'vitest';
import { CAM_GENERATION_DEFAULTS, CamGenerationRules, type CamKinematics } from '../../../../../src/core/v2x/facilities/cam-generation.js';

/** Checks every 100 ms over `seconds` of a motion; returns the CAMs' times and triggers. */
function run(motion: (t: number) => CamKinematics, seconds: number, params = CAM_GENERATION_DEFAULTS, dcc = (_t: number) => 0) {
  const rules = new CamGenerationRules(params);
  const cams: { t: number; trigger: string; lowFrequency: boolean }[] = [];
  for (let i = 0; i <= Math.round(seconds * 10); i++) {
    const t = i / 10;
    const d = rules.check(t, motion(t), dcc(t));
    if (d) cams.push({ t, ...d });
  }
  return cams;
}
const intervals = (cams: { t: number }[]) => cams.slice(1).map((c, i) => +(c.t - cams[i].t).toFixed(3));
const still = () => ({ x: 0, y: 0, headingDeg: 90, speed: 0 });

describe('CAM generation rules (EN 302 637-2 6.1.3)', () => {
  it('sends at once, then every T_GenCamMax when nothing changes; the low-frequency container every 500 ms at most', () => {
    const cams = run(still, 3);
    expect(cams.map((c) => c.t)).toEqual([0, 1, 2, 3]);
    expect(cams[0].trigger).toBe('first');
    expect(cams.slice(1).every((c) => c.trigger === 'time' && c.lowFrequency)).toBe(true);
  });

  it('sends when the position changed by more than 4 m: every 200 ms at 25 m/s', () => {
    const cams = run((t) => ({ x: 25 * t, y: 0, headingDeg: 90, speed: 25 }), 2);
    expect(intervals(cams).every((dt) => dt === 0.2)).toBe(true);
    expect(cams.slice(1).every((c) => c.trigger === 'dynamics')).toBe(true);
    expect(cams.map((c) => c.lowFrequency)).toEqual(cams.map((_, i) => i % 3 === 0));
  });

  it('sends on a heading change over 4 degrees and a speed change over 0.5 m/s, never faster than T_GenCamMin', () => {
    const turning = run((t) => ({ x: 0, y: 0, headingDeg: (350 + 30 * t) % 360, speed: 0.1 }), 1);
    expect(intervals(turning)).toEqual([0.2, 0.2, 0.2, 0.2, 0.2]); // 6 degrees per 200 ms, across north
    const braking = run((t) => ({ x: 0, y: 0, headingDeg: 0, speed: Math.max(0, 10 - 8 * t) }), 1);
    expect(intervals(braking).every((dt) => dt === 0.1)).toBe(true);
  });

  it('keeps a dynamics-set T_GenCam for N_GenCam CAMs of condition 2, then returns to T_GenCamMax', () => {
    // moves 5 m in the first 300 ms, then stands still
    const cams = run((t) => ({ x: Math.min(t, 0.3) * (5 / 0.3), y: 0, headingDeg: 0, speed: 0 }), 4);
    expect(cams.map((c) => c.trigger)).toEqual(['first', 'dynamics', 'time', 'time', 'time', 'time', 'time']);
    expect(cams.map((c) => c.t)).toEqual([0, 0.3, 0.6, 0.9, 1.2, 2.2, 3.2]);
  });

  it('sends at a fixed rate when one is given, whatever the dynamics', () => {
    const cams = run((t) => ({ x: 40 * t, y: 0, headingDeg: 0, speed: 40 }), 1, { ...CAM_GENERATION_DEFAULTS, fixedInterval: 0.5 });
    expect(cams.map((c) => c.t)).toEqual([0, 0.5, 1]);
    expect(cams.every((c) => c.trigger === 'fixed-rate')).toBe(true);
  });

  it('with congestion control, waits T_GenCam_Dcc (within T_GenCamMin..T_GenCamMax) instead of T_GenCamMin', () => {
    const braking = (t: number) => ({ x: 0, y: 0, headingDeg: 0, speed: Math.max(0, 10 - 4 * t) });
    expect(intervals(run(braking, 2, CAM_GENERATION_DEFAULTS, () => 0.4))).toEqual([0.4, 0.4, 0.4, 0.4, 0.4]);
    // past T_GenCamMax, DCC waits no longer than T_GenCamMax
    expect(intervals(run(braking, 2, CAM_GENERATION_DEFAULTS, () => 5))).toEqual([1, 1]);
    const fixed = { ...CAM_GENERATION_DEFAULTS, fixedInterval: 0.1 };
    expect(intervals(run(still, 1, fixed, (t) => (t < 0.5 ? 0 : 0.2)))).toEqual([0.1, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2]);
  });
});
