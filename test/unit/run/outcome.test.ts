import { describe, expect, it } from 'vitest';
import { EnvironmentError, ExternalProcessError } from '../../../src/errors.js';
import { ComponentFailedError, decideVerdict, describeComponentFailure, RUN_EXIT_STATUS } from '../../../src/run/outcome.js';
import { signalOfExitStatus } from '../../../src/runtime/emulated/component-watch.js';
import { lastLines } from '../../../src/util/last-lines.js';

describe('run verdict', () => {
  const died = new ComponentFailedError(
    { component: 'ns-3 channel', exit_status: null, signal: 'SIGKILL', last_log_lines: ['CAVSIM-READY'] },
    'during the run',
  );

  it.each([
    [{}, 'completed', undefined, 0],
    [{ invalid: 'late steps' }, 'invalid', 'late steps', 6],
    [{ interrupted: 'Ctrl-C', invalid: 'late steps' }, 'interrupted', 'Ctrl-C', 130],
    [{ failure: new Error('boom'), interrupted: 'Ctrl-C', invalid: 'late steps' }, 'failed', 'boom', 5],
    [{ failure: 'a string' }, 'failed', 'a string', 5],
  ] as const)('%j -> %s', (input, status, reason, exit) => {
    expect(decideVerdict(input)).toEqual({ status, ...(reason ? { reason } : {}), exit_status: exit });
  });

  it('a typed error keeps its own exit status and hint through the run', () => {
    expect(
      decideVerdict({ failure: new EnvironmentError('ns-3 development files not found', 'run scripts/setup-ns3.sh as root') }),
    ).toEqual({
      status: 'failed',
      reason: 'ns-3 development files not found',
      exit_status: 3,
      hint: 'run scripts/setup-ns3.sh as root',
    });
    expect(decideVerdict({ failure: new ExternalProcessError(['ip', 'link'], 2, 'RTNETLINK answers: File exists') }).exit_status).toBe(4);
  });

  it('a component failure names the component, its status and its last lines', () => {
    expect(decideVerdict({ failure: died, invalid: 'late' })).toEqual({
      status: 'failed',
      exit_status: 5,
      reason: 'the ns-3 channel was killed by SIGKILL during the run: CAVSIM-READY',
      failed_component: { component: 'ns-3 channel', exit_status: null, signal: 'SIGKILL', last_log_lines: ['CAVSIM-READY'] },
    });
    expect(
      describeComponentFailure({ component: 'vehicle car1 container', exit_status: 1, signal: null, last_log_lines: [] }, 'while starting'),
    ).toBe('the vehicle car1 container exited with status 1 while starting');
    expect(
      describeComponentFailure({ component: 'control link', exit_status: null, signal: null, last_log_lines: [] }, 'during the run'),
    ).toBe('the control link went away during the run');
  });

  it('has one exit status per outcome, none shared with bad input (2), environment (3), external (4) or bug (70)', () => {
    const values = Object.values(RUN_EXIT_STATUS);
    expect(new Set(values).size).toBe(values.length);
    expect(RUN_EXIT_STATUS).toEqual({ completed: 0, failed: 5, invalid: 6, interrupted: 130 });
    for (const taken of [2, 3, 4, 70]) expect(values).not.toContain(taken);
  });

  it('keeps the last non-empty lines of a log', () => {
    expect(lastLines('a\n\nb\nc\n\n', 2)).toEqual(['b', 'c']);
    expect(lastLines(undefined)).toEqual([]);
  });

  it('reads a death by signal from Docker exit statuses', () => {
    expect(signalOfExitStatus(137)).toBe('SIGKILL');
    expect(signalOfExitStatus(143)).toBe('SIGTERM');
    expect(signalOfExitStatus(1)).toBeNull();
    expect(signalOfExitStatus(0)).toBeNull();
    expect(signalOfExitStatus(255)).toBeNull();
  });
});
