import { afterEach, describe, expect, it, vi } from 'vitest';
import { EnvironmentError } from '../../../src/errors.js';
import { dockerProblem, inCi, requireReal, rootProblem } from '../../support/real-components.js';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('inCi', () => {
  it.each([undefined, '', '0', 'false', 'FALSE', ' false '])('is false for CI=%j', (ci) => {
    expect(inCi(ci === undefined ? {} : { CI: ci })).toBe(false);
  });

  it.each(['true', '1', 'yes', 'github-actions'])('is true for CI=%j', (ci) => {
    expect(inCi({ CI: ci })).toBe(true);
  });

  it('reads process.env by default', () => {
    vi.stubEnv('CI', 'true');
    expect(inCi()).toBe(true);
    vi.stubEnv('CI', undefined);
    expect(inCi()).toBe(false);
  });
});

describe('requireReal', () => {
  const PROBLEM = 'no Docker engine; fix: sudo scripts/setup-docker.sh';

  function gate(ci: string | undefined, problem: string | undefined) {
    vi.stubEnv('CI', ci);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    return { real: requireReal('docker/x.test.ts', problem), warn };
  }

  it('outside CI, a missing component skips the file with one SKIPPED warning', () => {
    const { real, warn } = gate(undefined, PROBLEM);
    expect(real.skip).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith('SKIPPED: docker/x.test.ts: no Docker engine; fix: sudo scripts/setup-docker.sh');
    expect(() => real.assertPresent()).toThrow(PROBLEM);
  });

  it('outside CI, a present component runs, silently', () => {
    const { real, warn } = gate('false', undefined);
    expect(real.skip).toBe(false);
    expect(warn).not.toHaveBeenCalled();
    expect(() => real.assertPresent()).not.toThrow();
  });

  it('in CI, a missing component never skips: assertPresent fails the file with the problem', () => {
    const { real, warn } = gate('true', PROBLEM);
    expect(real.skip).toBe(false);
    expect(warn).not.toHaveBeenCalled();
    expect(() => real.assertPresent()).toThrow(/docker\/x\.test\.ts.*no Docker engine; fix: sudo scripts\/setup-docker\.sh/);
  });

  it('in CI, a present component runs', () => {
    const { real, warn } = gate('1', undefined);
    expect(real.skip).toBe(false);
    expect(warn).not.toHaveBeenCalled();
    expect(() => real.assertPresent()).not.toThrow();
  });
});

describe('probes', () => {
  it('rootProblem is undefined for uid 0 and names the fix otherwise', () => {
    vi.spyOn(process, 'getuid').mockReturnValue(0);
    expect(rootProblem()).toBeUndefined();
    vi.spyOn(process, 'getuid').mockReturnValue(1000);
    expect(rootProblem()).toMatch(/not running as root; fix: .*sudo/);
  });

  it('dockerProblem is undefined when the engine answers a ping, else its error and the fix', async () => {
    expect(await dockerProblem({ ping: async () => {} })).toBeUndefined();
    const down = {
      ping: () => Promise.reject(new EnvironmentError('Docker engine not reachable: connect ENOENT /var/run/docker.sock', 'hint')),
    };
    expect(await dockerProblem(down)).toBe(
      'Docker engine not reachable: connect ENOENT /var/run/docker.sock; fix: sudo scripts/setup-docker.sh',
    );
  });
});
