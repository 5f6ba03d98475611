import { describe, expect, it } from 'vitest';
import { withinDriveLimits } from '../../../../src/core/physics/drive-limits.js';

const limits = { v_min: -5, v_max: 20, s_min: -0.4189, s_max: 0.4189 };

describe('withinDriveLimits: what untrusted code asks for, within the car', () => {
  it('a command inside the limits is the same command', () => {
    const command = { speed: 20, steer: -0.4189 };
    expect(withinDriveLimits(command, limits)).toBe(command);
  });

  it('speed and steering beyond them are clamped, each to its own limit', () => {
    expect(withinDriveLimits({ speed: 1e308, steer: 1e3 }, limits)).toEqual({ speed: 20, steer: 0.4189 });
    expect(withinDriveLimits({ speed: -Infinity, steer: -7 }, limits)).toEqual({ speed: -5, steer: -0.4189 });
  });
});
