import { fileURLToPath } from 'node:url';
import { EnvironmentError } from '../../errors.js';
import type { CommandRunner } from '../exec/command-runner.js';
import { executeOperation } from './execute.js';
import { type HostNetOperation, type HostNetResult, hostNetOperationSchema } from './operation-schema.js';

/** The port all host-network changes go through; tests substitute a recording fake. */
export interface HostNetOps {
  run(op: HostNetOperation): Promise<HostNetResult>;
}

/** Root: validate and execute in this process. */
export function createDirectOps(runner: CommandRunner): HostNetOps {
  return { run: (op) => executeOperation(op, runner) };
}

export const defaultHelperPath = () => fileURLToPath(new URL('./privileged-helper.js', import.meta.url));

/** Not root: every operation goes through `sudo -n node privileged-helper.js` with JSON on stdin. */
export function createSudoOps(runner: CommandRunner, helperPath = defaultHelperPath()): HostNetOps {
  return {
    async run(op) {
      const valid = hostNetOperationSchema.parse(op); // refuse locally before asking for privileges
      const r = await runner.run(['sudo', '-n', process.execPath, helperPath], { input: JSON.stringify(valid), allowFailure: true });
      if (r.exitCode !== 0) {
        if (r.exitCode === -1) {
          throw new EnvironmentError(
            `host networking needs root: could not run sudo for ${valid.op}${r.stderr ? `: ${r.stderr.trim()}` : ''}`,
            'install sudo, or run cavsim as root',
          );
        }
        if (/password is required|a terminal is required/.test(r.stderr)) {
          throw new EnvironmentError(
            'host networking needs root: sudo asked for a password',
            `run as root, or allow passwordless sudo for: ${process.execPath} ${helperPath}`,
          );
        }
        throw new EnvironmentError(
          `privileged helper failed on ${valid.op}: ${r.stderr.trim().split('\n').slice(-5).join('\n')}`,
          'see the run log',
        );
      }
      return JSON.parse(r.stdout) as HostNetResult;
    },
  };
}

export function createHostNetOps(runner: CommandRunner, uid = process.getuid?.() ?? 0): HostNetOps {
  return uid === 0 ? createDirectOps(runner) : createSudoOps(runner);
}
