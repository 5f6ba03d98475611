import { describe, expect, it } from 'vitest';
import {
  comparisonRows,
  DEFAULT_VEHICLE_COUNTS,
  describeError,
  notValidRow,
  parseVehicleCounts,
  type ScalingOutcome,
  scalingRows,
  smallestNotValid,
} from '../../../bench/vehicle-scaling.js';
import { UserInputError } from '../../../src/errors.js';

const timing = {
  step_lateness_p99_ms: 0.8,
  late_fraction: 0.002,
  late_threshold_ms: 5,
  control_commands: 1000,
  control_lag_p50_ms: 1.25,
  control_lag_p99_ms: 6.5,
  control_lag_max_ms: 12,
  late_commands: 30,
  late_command_fraction: 0.03,
};
const completed = (vehicles: number): ScalingOutcome => ({
  vehicles,
  status: 'completed',
  simTimeS: 5,
  timing,
  phases: { compiled: 100, containers: 1100, channel: 1600, started: 2000, teardown: 900 },
});
const invalid = (vehicles: number, reason = 'too many late drive commands'): ScalingOutcome => ({
  ...completed(vehicles),
  status: 'invalid',
  reason,
});
const failed = (vehicles: number, reason = 'the simulator container exited with status 1'): ScalingOutcome => ({
  vehicles,
  status: 'failed',
  reason,
});

describe('BENCH_VEHICLES', () => {
  it('defaults to 10, 16, 24 and 32 when unset or blank', () => {
    expect(DEFAULT_VEHICLE_COUNTS).toEqual([8, 16, 32]);
    expect(parseVehicleCounts(undefined)).toEqual([8, 16, 32]);
    expect(parseVehicleCounts('  ')).toEqual([8, 16, 32]);
  });

  it('takes a comma-separated subset, sorted and without repeats', () => {
    expect(parseVehicleCounts('10,16')).toEqual([10, 16]);
    expect(parseVehicleCounts(' 24, 10 ,24')).toEqual([10, 24]);
  });

  it.each(['ten', '10,,16', '0', '-4', '2.5', '10;16'])('refuses %j', (text) => {
    expect(() => parseVehicleCounts(text)).toThrow(/^BENCH_VEHICLES: ".*" is not a vehicle count/);
  });
});

describe('smallest vehicle count whose run is not valid', () => {
  it('is undefined when every run completed', () => {
    expect(smallestNotValid([completed(10), completed(16)])).toBeUndefined();
  });

  it('counts invalid and failed runs alike', () => {
    expect(smallestNotValid([completed(10), invalid(16), failed(24)])?.vehicles).toBe(16);
    expect(smallestNotValid([completed(10), completed(16), failed(24), invalid(32)])?.vehicles).toBe(24);
  });

  it('is the smallest count, not the first listed, and ignores a larger count that happened to pass', () => {
    expect(smallestNotValid([invalid(32), completed(10), invalid(24), completed(16)])?.vehicles).toBe(24);
    expect(smallestNotValid([completed(10), invalid(16), completed(24)])?.vehicles).toBe(16);
  });

  it('treats an interrupted run as not valid', () => {
    expect(smallestNotValid([completed(10), { vehicles: 16, status: 'interrupted', reason: 'SIGINT' }])?.vehicles).toBe(16);
  });

  it('final row: the count with status and reason, or 0 and a note that all were valid', () => {
    expect(notValidRow([completed(10), invalid(16, 'late commands'), failed(24, 'boom')])).toEqual({
      suite: 'emulated-runtime',
      name: 'loop: smallest vehicle count not valid',
      value: 16,
      unit: 'vehicles',
      note: 'invalid: late commands',
    });
    expect(notValidRow([completed(10), completed(16)])).toMatchObject({ value: 0, note: 'none: all valid (10, 16)' });
    expect(notValidRow([])).toMatchObject({ value: 0, note: 'none: no vehicle counts were run' });
  });
});

describe('rows for one vehicle count', () => {
  it('reports status, start-up, step lateness, drive-command lag, late commands and the baseline ratio', () => {
    const rows = scalingRows(invalid(16, 'too many late drive commands'), 0.4);
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(rows.map((r) => r.name)).toEqual([
      '16 vehicles (loop): status',
      '16 vehicles (loop): up to first physics step',
      '16 vehicles (loop): step lateness p99',
      '16 vehicles (loop): drive-command lag p99',
      '16 vehicles (loop): late drive commands',
      '16 vehicles: step lateness p99 / timer baseline p99',
    ]);
    expect(byName['16 vehicles (loop): status']).toMatchObject({
      value: 5,
      unit: 's simulated',
      note: 'invalid: too many late drive commands',
    });
    expect(byName['16 vehicles (loop): up to first physics step']).toMatchObject({
      value: 2,
      unit: 's',
      note: 'containers 1.00 s, host network + ns-3 0.50 s, teardown 0.90 s',
    });
    expect(byName['16 vehicles (loop): step lateness p99']).toMatchObject({ value: 0.8, unit: 'ms', note: 'late steps 0.2 % (> 5 ms)' });
    expect(byName['16 vehicles (loop): step lateness p99'].target).toBeUndefined();
    expect(byName['16 vehicles (loop): drive-command lag p99']).toMatchObject({ value: 6.5, unit: 'ms', note: 'p50 1.250, max 12.000' });
    expect(byName['16 vehicles (loop): late drive commands']).toMatchObject({
      value: 3,
      unit: '%',
      note: '30 of 1000 applied a step late',
    });
    expect(byName['16 vehicles: step lateness p99 / timer baseline p99'].value).toBeCloseTo(2, 10);
  });

  it('keeps the 10-vehicle step lateness target', () => {
    expect(scalingRows(completed(10), 0.4).find((r) => r.name === '10 vehicles (loop): step lateness p99')?.target).toBe('< 1 ms');
    expect(scalingRows(completed(10), 0.4)[0].note).toBe('completed');
  });

  it('a failed run is one row with its reason', () => {
    expect(scalingRows(failed(32, 'vehicle container car31 is not running'), 0.4)).toEqual([
      {
        suite: 'emulated-runtime',
        name: '32 vehicles (loop): status',
        value: 0,
        unit: 's simulated',
        note: 'failed: vehicle container car31 is not running',
      },
    ]);
  });

  it('leaves out figures the run did not produce instead of printing NaN', () => {
    const rows = scalingRows(
      {
        vehicles: 24,
        status: 'invalid',
        reason: 'x',
        simTimeS: 5,
        timing: { ...timing, control_lag_p99_ms: null, step_lateness_p99_ms: null },
      },
      0.4,
    );
    expect(rows.map((r) => r.name)).toEqual(['24 vehicles (loop): status', '24 vehicles (loop): late drive commands']);
    expect(rows.every((r) => Number.isFinite(r.value))).toBe(true);
  });
});

describe('the same count with the build before', () => {
  it('gives its status, and start-up without images, teardown and lag as ratios of this build over it', () => {
    const now = {
      ...completed(32),
      phases: { images: 300, compiled: 310, containers: 12_000, channel: 20_000, started: 20_300, teardown: 2000 },
    };
    const before = {
      ...invalid(32),
      phases: { images: 40_000, compiled: 40_010, containers: 70_000, channel: 80_000, started: 80_300, teardown: 4000 },
      timing: { ...timing, control_lag_p99_ms: 13 },
    };
    const rows = comparisonRows(now, before);
    const value = (name: string) => rows.find((r) => r.name === `32 vehicles (loop)${name}`)?.value;
    expect(rows[0]).toMatchObject({ name: '32 vehicles (loop), build before: status', note: 'invalid: too many late drive commands' });
    expect(value(', build before: up to first physics step without the image check')).toBe(40.3);
    expect(value(': up to first physics step without the image check, this build / build before')).toBeCloseTo(20 / 40.3, 6);
    expect(value(': teardown, this build / build before')).toBe(0.5);
    expect(value(': drive-command lag p99, this build / build before')).toBe(0.5);
    expect(value(': late drive commands, this build / build before')).toBe(1);
    expect(comparisonRows(now, failed(32))).toHaveLength(1);
  });
});

describe('a thrown error as a failed run reason', () => {
  it('keeps a user-input error details, such as which cars overlap', () => {
    expect(describeError(new UserInputError('scenario is invalid', ['vehicles.31.start: the car overlaps car0 at the start']))).toBe(
      'scenario is invalid: vehicles.31.start: the car overlaps car0 at the start',
    );
    expect(describeError(new Error('docker is not running'))).toBe('docker is not running');
    expect(describeError('plain')).toBe('plain');
  });
});
