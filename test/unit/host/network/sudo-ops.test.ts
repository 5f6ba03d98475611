import { describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../../../src/errors.js';
import type { CommandRunner } from '../../../../src/host/exec/command-runner.js';
import { createHostNetOps, createSudoOps } from '../../../../src/host/network/hostnet-port.js';

describe('operations through sudo', () => {
  it('passes one validated operation as JSON on stdin to the helper, never on a shell line', async () => {
    const seen: Array<{ argv: readonly string[]; input?: string }> = [];
    const runner: CommandRunner = {
      async run(argv, opts) {
        seen.push({ argv, input: opts?.input });
        return { stdout: '{"ok":true,"exists":false}', stderr: '', exitCode: 0 };
      },
    };
    const ops = createSudoOps(runner, '/opt/cavsim/dist/host/network/privileged-helper.js');
    expect(await ops.run({ op: 'link-info', name: 'br-abc123-0' })).toEqual({ ok: true, exists: false });
    expect(seen[0].argv).toEqual(['sudo', '-n', process.execPath, '/opt/cavsim/dist/host/network/privileged-helper.js']);
    expect(JSON.parse(seen[0].input!)).toEqual({ op: 'link-info', name: 'br-abc123-0' });
    await expect(ops.run({ op: 'delete-link', name: 'x; reboot' })).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });

  it('explains how to grant privileges when sudo wants a password', async () => {
    const runner: CommandRunner = { run: async () => ({ stdout: '', stderr: 'sudo: a password is required', exitCode: 1 }) };
    const err = await createSudoOps(runner, '/h.js')
      .run({ op: 'chain-exists', chain: 'DOCKER-USER' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect((err as EnvironmentError).hint).toContain('/h.js');
  });
});

describe('choosing how to reach the privileged helper', () => {
  const recording = () => {
    const argvs: string[][] = [];
    const runner: CommandRunner = {
      async run(argv) {
        argvs.push([...argv]);
        return { stdout: '{"ok":true,"exists":true}', stderr: '', exitCode: 0 };
      },
    };
    return { argvs, runner };
  };

  it('runs operations in-process as root, without sudo', async () => {
    const { argvs, runner } = recording();
    await createHostNetOps(runner, 0).run({ op: 'chain-exists', chain: 'DOCKER-USER' });
    expect(argvs).toEqual([['iptables', '-w', '-t', 'filter', '-S', 'DOCKER-USER']]);
  });

  it('goes through sudo -n (never prompting) when not root', async () => {
    const { argvs, runner } = recording();
    await createHostNetOps(runner, 1000).run({ op: 'chain-exists', chain: 'DOCKER-USER' });
    expect(argvs).toHaveLength(1);
    expect(argvs[0].slice(0, 3)).toEqual(['sudo', '-n', process.execPath]);
    expect(argvs[0][3]).toMatch(/privileged-helper\.js$/);
    expect(argvs[0]).toHaveLength(4);
  });
});

describe('errors from the sudo path', () => {
  const failing = (r: { stderr: string; exitCode: number }): CommandRunner => ({ run: async () => ({ stdout: '', ...r }) });

  it('treats "a terminal is required" like a password prompt', async () => {
    const err = await createSudoOps(failing({ stderr: 'sudo: a terminal is required to read the password', exitCode: 1 }), '/h.js')
      .run({ op: 'netns-info', name: 'cvt-abc123-0' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect((err as EnvironmentError).message).toContain('sudo asked for a password');
  });

  it('names the operation and keeps the tail of the helper stderr when the helper fails', async () => {
    const stderr = ['line 1', 'line 2', 'line 3', 'line 4', 'line 5', 'RTNETLINK answers: File exists'].join('\n');
    const err = await createSudoOps(failing({ stderr, exitCode: 1 }), '/h.js')
      .run({ op: 'create-bridge', name: 'br-abc123-0', alias: 'cavsim:run-1' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toContain('create-bridge');
    expect(err.message).toContain('RTNETLINK answers: File exists');
    expect(err.message).not.toContain('line 1');
  });

  it('says so when sudo itself could not be run', async () => {
    const err = await createSudoOps(failing({ stderr: '', exitCode: -1 }), '/h.js')
      .run({ op: 'link-up', name: 'br-abc123-0' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect(err.message).toContain('could not run sudo');
  });
});
