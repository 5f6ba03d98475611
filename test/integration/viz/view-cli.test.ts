import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { headOnRun, newRunsDir, ROOT } from './support/run-fixtures.js';

// The built CLI, as users run it (the suite's global set-up builds dist/).
const CLI = join(ROOT, 'dist/cli/main.js');
const runsDir = newRunsDir();
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

const status = (url: string) =>
  new Promise<number>((resolve, reject) => {
    get(url, (res) => {
      res.resume();
      resolve(res.statusCode!);
    }).on('error', reject);
  });

describe('cavsim view (CLI)', () => {
  it('rejects a folder that is not a run, with exit status 2 and a hint', () => {
    const missing = spawnSync('node', [CLI, 'view', join(runsDir, 'nope'), '--no-open'], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('no such run or sweep folder');
    const notARun = spawnSync('node', [CLI, 'view', runsDir, '--no-open'], { encoding: 'utf8' });
    expect(notARun.status).toBe(2);
    expect(notARun.stderr).toMatch(/neither a run folder \(no scenario.resolved.json\) nor a sweep folder \(no grid.json\)/);
    const badPort = spawnSync('node', [CLI, 'view', runsDir, '--port', 'http'], { encoding: 'utf8' });
    expect(badPort.status).toBe(2);
  });

  it('prints a loopback URL that serves the page, and stops on SIGINT', async () => {
    const runDir = await headOnRun(runsDir);
    const child = spawn('node', [CLI, 'view', runDir, '--no-open'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c) => {
          out += c;
          const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
          if (m) resolve(m[0]);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code} before printing a URL: ${out}`)));
      });
      expect(await status(url)).toBe(200);
      expect(await status(`${url}api/meta`)).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
