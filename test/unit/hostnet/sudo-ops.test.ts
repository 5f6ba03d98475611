import { describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../../src/errors.js';
import type { CommandRunner } from '../../../src/exec/command-runner.js';
import { createSudoOps } from '../../../src/hostnet/ops.js';

describe('operations through sudo', () => {
  it('passes one validated operation as JSON on stdin to the helper, never on a shell line', async () => {
    const seen: Array<{ argv: readonly string[]; input?: string }> = [];
    const runner: CommandRunner = {
      async run(argv, opts) {
        seen.push({ argv, input: opts?.input });
        return { stdout: '{"ok":true,"exists":false}', stderr: '', exitCode: 0 };
      },
    };
    const ops = createSudoOps(runner, '/opt/cavsim/dist/hostnet/privileged-helper.js');
    expect(await ops.run({ op: 'link-info', name: 'br-abc123-0' })).toEqual({ ok: true, exists: false });
    expect(seen[0].argv).toEqual(['sudo', '-n', process.execPath, '/opt/cavsim/dist/hostnet/privileged-helper.js']);
    expect(JSON.parse(seen[0].input!)).toEqual({ op: 'link-info', name: 'br-abc123-0' });
    await expect(ops.run({ op: 'delete-link', name: 'x; reboot' })).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });

  it('explains how to grant privileges when sudo wants a password', async () => {
    const runner: CommandRunner = { run: async () => ({ stdout: '', stderr: 'sudo: a password is required', exitCode: 1 }) };
    const err = await createSudoOps(runner, '/h.js').run({ op: 'chain-exists', chain: 'DOCKER-USER' }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect((err as EnvironmentError).hint).toContain('/h.js');
  });
});
