import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommandRunner } from '../../../src/host/exec/command-runner.js';
import { startWithNodeSpawn } from '../../../src/host/exec/node-piped-process.js';
import { createPipedCommandRunner } from '../../../src/host/exec/piped-command-runner.js';
import type { StartPipedProcess } from '../../../src/host/exec/piped-process.js';
import { loadPosixSpawnAddon, nodeHeaders } from '../../../src/host/exec/posix-spawn-addon.js';
import { requireReal } from '../../support/real-components.js';
import { repoRoot } from './support.js';

const headersProblem = existsSync(join(nodeHeaders(), 'node_api.h'))
  ? undefined
  : `no node_api.h under ${nodeHeaders()}; fix: install Node with its headers`;
const real = requireReal('processes/piped-process.test.ts', headersProblem);
const cacheDir = mkdtempSync(join(tmpdir(), 'cavsim-addon-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

const starters: Record<string, () => StartPipedProcess> = { "Node's spawn": () => startWithNodeSpawn };
let posixSpawn: StartPipedProcess;
starters.posix_spawn = () => posixSpawn;

const readAll = (stream: Readable) =>
  new Promise<string>((resolve) => {
    let text = '';
    stream
      .setEncoding('utf8')
      .on('data', (d: string) => (text += d))
      .on('end', () => resolve(text));
  });

/** A status line of /proc/<pid>/status as the program itself reads it. */
async function ownStatus(start: StartPipedProcess, field: string): Promise<string> {
  const child = start('/bin/cat', ['/proc/self/status']);
  const text = await readAll(child.stdout);
  return text
    .split('\n')
    .find((l) => l.startsWith(`${field}:`))!
    .split(/\s+/)[1];
}

describe.skipIf(real.skip)('starting a piped program', () => {
  beforeAll(async () => {
    real.assertPresent();
    posixSpawn = await loadPosixSpawnAddon(createCommandRunner(), cacheDir);
  }, 60_000);

  for (const [name, starter] of Object.entries(starters)) {
    describe(name, () => {
      it('talks over stdin and stdout and reports a clean exit', async () => {
        const child = starter()('/bin/cat', []);
        expect(child.pid).toBeGreaterThan(0);
        const echoed = readAll(child.stdout);
        child.stdin.end('a line\nanother\n');
        expect(await echoed).toBe('a line\nanother\n');
        expect(await child.exit).toEqual({ code: 0, signal: null });
      });

      it('reports the exit code and what the program wrote to stderr', async () => {
        const child = starter()('/bin/sh', ['-c', 'echo broken >&2; exit 3']);
        expect(await readAll(child.stderr)).toBe('broken\n');
        expect(await child.exit).toEqual({ code: 3, signal: null });
      });

      it('reports the signal that killed the program, and a later kill reaches nothing', async () => {
        const child = starter()('/bin/sleep', ['30']);
        child.kill('SIGKILL');
        expect(await child.exit).toEqual({ code: null, signal: 'SIGKILL' });
        expect(() => child.kill('SIGKILL')).not.toThrow();
      });

      it('reports the exit of each of many programs started at once', async () => {
        const children = Array.from({ length: 40 }, (_, i) => starter()('/bin/sh', ['-c', `exit ${i % 7}`]));
        const exits = await Promise.all(children.map((c) => c.exit));
        expect(exits.map((e) => e.code)).toEqual(children.map((_, i) => i % 7));
      });

      it('refuses at once a program that does not exist, naming it', () => {
        expect(() => starter()('/nonexistent/ns3-program', [])).toThrow(/\/nonexistent\/ns3-program/);
      });

      it('gives the program no blocked signal and none of the standard ones ignored (Node ignores SIGPIPE)', async () => {
        expect(await ownStatus(starter(), 'SigBlk')).toBe('0000000000000000');
        // bits 0-30 are signals 1-31. glibc leaves its internal 32 and 33 ignored; glibc programs arm them on use
        expect(BigInt(`0x${await ownStatus(starter(), 'SigIgn')}`) & 0x7fffffffn).toBe(0n);
      });

      it('runs commands as the execa runner does: PATH lookup, input, output without its final newline, failures', async () => {
        const runner = createPipedCommandRunner(starter());
        expect(await runner.run(['sh', '-c', 'cat; echo out; echo err >&2'], { input: 'in\n' })).toEqual({
          stdout: 'in\nout',
          stderr: 'err',
          exitCode: 0,
        });
        expect(await runner.run(['sh', '-c', 'echo why >&2; exit 4'], { allowFailure: true })).toEqual({
          stdout: '',
          stderr: 'why',
          exitCode: 4,
        });
        await expect(runner.run(['sh', '-c', 'echo why >&2; exit 4'])).rejects.toThrow(/sh -c .* failed \(exit 4\): why/);
        await expect(runner.run(['cavsim-no-such-program'])).rejects.toThrow(/cavsim-no-such-program: not found on PATH/);
        const many = await Promise.all(Array.from({ length: 24 }, (_, i) => runner.run(['sh', '-c', `echo ${i}`])));
        expect(many.map((r) => r.stdout)).toEqual(Array.from({ length: 24 }, (_, i) => String(i)));
      });

      it("passes the environment, and none of this process's pipe ends", async () => {
        const other = starter()('/bin/cat', []);
        process.env.CAVSIM_PIPED_TEST = 'seen';
        const child = starter()('/bin/sh', ['-c', 'echo $CAVSIM_PIPED_TEST; ls /proc/$$/fd']);
        delete process.env.CAVSIM_PIPED_TEST;
        const ours = [other, child]
          .flatMap((c) => [c.stdin, c.stdout, c.stderr])
          .map((s) => String((s as unknown as { _handle: { fd: number } })._handle.fd));
        const [seen, ...fds] = (await readAll(child.stdout)).trim().split('\n');
        expect(seen).toBe('seen');
        expect(fds.slice(0, 3)).toEqual(['0', '1', '2']);
        expect(ours.every((fd) => Number(fd) > 2)).toBe(true);
        expect(fds.filter((fd) => ours.includes(fd))).toEqual([]);
        other.stdin.end();
        await other.exit;
      });
    });
  }

  describe('holding the event loop', () => {
    /** Runs a script in a fresh Node that starts `sleep` with the posix_spawn addon from dist/. */
    const script = (body: string) => `
      const { loadPosixSpawnAddon } = await import(${JSON.stringify(join(repoRoot, 'dist/host/exec/posix-spawn-addon.js'))});
      const { createCommandRunner } = await import(${JSON.stringify(join(repoRoot, 'dist/host/exec/command-runner.js'))});
      const start = await loadPosixSpawnAddon(createCommandRunner(), ${JSON.stringify(cacheDir)});
      ${body}`;
    const node = (body: string) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', script(body)], { encoding: 'utf8', timeout: 20_000 });

    it('a program that is held keeps Node running until it exits, and its exit is reported', () => {
      const r = node(`const c = start('/bin/sleep', ['0.3']); c.exit.then((e) => console.log(JSON.stringify(e)));`);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({ code: 0, signal: null });
    });

    it('a worker thread may end while its programs run or exit, and Node goes on', () => {
      // a worker evaluates a script, not a module: the body runs in an async function
      const worker = `(async () => { ${script(`
        for (let i = 0; i < 20; i++) start('/bin/sleep', [String(0.05 * (i % 5))]);
        start('/bin/sleep', ['0.3']);
        (await import('node:worker_threads')).parentPort.postMessage('started');`)} })();`;
      // the addon is loaded in the worker only, as in a sweep's worker threads
      const main = `
        const { Worker } = await import('node:worker_threads');
        const w = new Worker(${JSON.stringify(worker)}, { eval: true });
        w.on('error', (e) => console.log('worker failed', e.message));
        w.on('message', (m) => { console.log(m); setTimeout(() => w.terminate(), 100); });
        setTimeout(() => console.log('still here'), 1000);`;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', main], { encoding: 'utf8', timeout: 20_000 });
      expect(r.signal, r.stderr).toBeNull();
      expect(r.stdout.trim().split('\n')).toEqual(['started', 'still here']);
    });

    it('a program that is not held lets Node exit while it runs', () => {
      const r = node(`const c = start('/bin/sleep', ['30']); c.hold(false); console.log(c.pid);`);
      expect(r.status).toBe(0);
      const pid = Number(r.stdout.trim());
      expect(pid).toBeGreaterThan(0);
      process.kill(pid, 'SIGKILL'); // it is still running: Node did not wait for it
    });
  });
});
