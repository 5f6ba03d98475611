import { describe, expect, it } from 'vitest';
import { errorJson, snakeCase, snakeCaseKeys, wantsJson } from '../../../src/cli/json-output.js';

describe('--json output', () => {
  it('puts every key in snake_case, deeply, and leaves values and snake_case keys alone', () => {
    expect(snakeCase('lastSafeText')).toBe('last_safe_text');
    expect(snakeCase('min_ttc_s')).toBe('min_ttc_s');
    expect(snakeCase('p99LatencyMs')).toBe('p99_latency_ms');
    expect(snakeCaseKeys({ critical: { lastSafe: 270, samples: [{ atValue: 'keepThisValue' }] }, runDir: null })).toEqual({
      critical: { last_safe: 270, samples: [{ at_value: 'keepThisValue' }] },
      run_dir: null,
    });
  });

  it('reads --json only before a `--`', () => {
    expect(wantsJson(['node', 'cavsim', 'up', 'x.yaml', '--json'])).toBe(true);
    expect(wantsJson(['node', 'cavsim', 'up', 'x.yaml', '--', '--json'])).toBe(false);
  });

  it('prints an error with its kind, message, details, hint and exit status', () => {
    expect(errorJson('user_input', 2, 'network.delay: bad', ['line 3'], 'write 10ms')).toEqual({
      error: { kind: 'user_input', message: 'network.delay: bad', details: ['line 3'], hint: 'write 10ms', exit_status: 2 },
    });
  });
});
