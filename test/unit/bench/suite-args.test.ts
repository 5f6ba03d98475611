import { describe, expect, it } from 'vitest';
import { resolveSuiteArgs } from '../../../bench/suite-args.js';

const SUITES = ['simulated-runtime', 'emulated-runtime', 'lidar', 'sweep'];

describe('bench suite arguments', () => {
  it('runs every suite, in registry order, when no name is given', () => {
    expect(resolveSuiteArgs([], SUITES)).toEqual({ kind: 'run', names: SUITES });
  });

  it('runs the named suites in the order given, each once', () => {
    expect(resolveSuiteArgs(['sweep', 'simulated-runtime', 'sweep'], SUITES)).toEqual({
      kind: 'run',
      names: ['sweep', 'simulated-runtime'],
    });
  });

  it('refuses a misspelt suite and names the ones there are', () => {
    expect(resolveSuiteArgs(['emulated'], SUITES)).toEqual({
      kind: 'error',
      messages: ['unknown suite "emulated"; suites: simulated-runtime, emulated-runtime, lidar, sweep'],
    });
  });

  it('refuses the whole command when any one name is unknown, reporting each', () => {
    const result = resolveSuiteArgs(['lidar', 'sim', 'emulated'], SUITES);
    expect(result.kind).toBe('error');
    expect(result.kind === 'error' && result.messages.map((m) => m.split(';')[0])).toEqual([
      'unknown suite "sim"',
      'unknown suite "emulated"',
    ]);
  });

  it('matches names exactly: no prefixes, no case folding', () => {
    expect(resolveSuiteArgs(['Lidar'], SUITES).kind).toBe('error');
    expect(resolveSuiteArgs(['lidar-'], SUITES).kind).toBe('error');
  });

  it('--list lists, alone or beside valid names', () => {
    expect(resolveSuiteArgs(['--list'], SUITES)).toEqual({ kind: 'list' });
    expect(resolveSuiteArgs(['lidar', '--list'], SUITES)).toEqual({ kind: 'list' });
  });

  it('refuses an unknown option instead of reading it as a suite', () => {
    expect(resolveSuiteArgs(['--lst'], SUITES)).toEqual({ kind: 'error', messages: ['unknown option "--lst"; options: --list'] });
  });
});
