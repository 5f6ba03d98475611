import { defaultCacheDir } from '../channel/ns3/compile.js';
import type { DockerPort } from '../host/docker/docker-port.js';
import { connectDocker } from '../host/docker/dockerode-port.js';
import { type CommandRunner, createCommandRunner } from '../host/exec/command-runner.js';
import { createPipedCommandRunner } from '../host/exec/piped-command-runner.js';
import { prepareFastProcessStart, startPipedProcess } from '../host/exec/start-piped-process.js';
import { createHostNetOps, type HostNetOps } from '../host/network/hostnet-port.js';

/** The real ports of this host, for the commands around an emulated run. Built per call: no module-level client. */
export interface HostPorts {
  docker: DockerPort;
  commands: CommandRunner;
  hostNet: HostNetOps;
}

export function realHostPorts(): HostPorts {
  // Commands go through posix_spawn once it is loaded (Node's spawn until then, or where it cannot be built).
  void prepareFastProcessStart(createCommandRunner(), defaultCacheDir());
  const commands = createPipedCommandRunner(startPipedProcess);
  return { docker: connectDocker(), commands, hostNet: createHostNetOps(commands) };
}

/** A command runner for one-off programs the CLI starts (a browser, `sbatch --version`). */
export const realCommandRunner = (): CommandRunner => createCommandRunner();
