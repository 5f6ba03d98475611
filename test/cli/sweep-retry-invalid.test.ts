import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '../support/scratch-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli/main.js');

function cavsim(args: string[]) {
  const r = spawnSync('node', [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CI: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('cavsim sweep --retry-invalid', () => {
  it('is refused for simulated runs, naming the flag and the fix, exit 2, creating no sweep folder', () => {
    const sweeps = scratchDir('cavsim-sweep-retry-');
    const r = cavsim(['sweep', 'scenarios/head-on-brake.yaml', '--delay', '10,20ms', '--retry-invalid', '2', '--sweeps-dir', sweeps]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--retry-invalid 2: a simulated run is deterministic');
    expect(r.stderr).toContain('use --retry-invalid with --runtime docker');
    expect(readdirSync(sweeps)).toEqual([]);
  });

  it('takes a whole number of attempts up to 5, naming the flag otherwise', () => {
    const sweeps = scratchDir('cavsim-sweep-retry-');
    for (const value of ['9', 'two', '-1']) {
      const r = cavsim([
        'sweep',
        'scenarios/head-on-brake.yaml',
        '--delay',
        '10ms',
        '--runtime',
        'docker',
        '--retry-invalid',
        value,
        '--sweeps-dir',
        sweeps,
      ]);
      expect(r.code, value).toBe(2);
      expect(r.stderr, value).toContain('--retry-invalid');
    }
    expect(readdirSync(sweeps)).toEqual([]);
  });
});
