import { describe, expect, it } from 'vitest';
import type { CommandRunner } from '../../../../src/host/exec/command-runner.js';
import { executeOperation } from '../../../../src/host/network/execute.js';

describe('bridges on the V2V path', () => {
  it('are created without multicast snooping or STP, so the bridge itself puts no frame on the bus', async () => {
    const argvs: string[][] = [];
    const runner: CommandRunner = {
      async run(argv) {
        argvs.push([...argv]);
        return { stdout: '', stderr: '', exitCode: 0 };
      },
    };
    await executeOperation({ op: 'create-bridge', name: 'br-abc123-0', alias: 'cavsim:run-1' }, runner);
    expect(argvs[0]).toEqual(['ip', 'link', 'add', 'name', 'br-abc123-0', 'type', 'bridge', 'mcast_snooping', '0', 'stp_state', '0']);
    expect(argvs).toContainEqual(['sysctl', '-q', '-w', 'net/ipv6/conf/br-abc123-0/disable_ipv6=1']);
  });
});
