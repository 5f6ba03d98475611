import { EnvironmentError } from '../../errors.js';
import type { CommandRunner } from '../exec/command-runner.js';

/** This host's address toward a remote host's tunnel address: the source of the kernel's route to it. */
export async function sourceAddressTo(runner: Pick<CommandRunner, 'run'>, address: string, host: string): Promise<string> {
  const r = await runner.run(['ip', '-4', '-o', 'route', 'get', address], { allowFailure: true });
  const src = /\bsrc (\d+\.\d+\.\d+\.\d+)/.exec(r.stdout)?.[1];
  if (r.exitCode !== 0 || !src)
    throw new EnvironmentError(
      `${host}: this host has no route to its tunnel address ${address} (${r.stderr.trim() || 'no source address'})`,
      "check the hosts file's tunnelAddress and this host's routes (`ip route get ADDRESS`)",
    );
  return src;
}
