import { connectDocker } from '../host/docker/dockerode-port.js';
import type { DockerPort } from '../host/docker/docker-port.js';
import { createCommandRunner, type CommandRunner } from '../host/exec/command-runner.js';
import { createHostNetOps, type HostNetOps } from '../host/network/hostnet-port.js';

/** The real ports of this host, for the commands around an emulated run. Built per call: no module-level client. */
export interface HostPorts {
  docker: DockerPort;
  commands: CommandRunner;
  hostNet: HostNetOps;
}

export function realHostPorts(): HostPorts {
  const commands = createCommandRunner();
  return { docker: connectDocker(), commands, hostNet: createHostNetOps(commands) };
}

/** A command runner for one-off programs the CLI starts (a browser, `sbatch --version`). */
export const realCommandRunner = (): CommandRunner => createCommandRunner();
