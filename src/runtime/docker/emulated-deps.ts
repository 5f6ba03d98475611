import type { DockerPort } from '../../docker/docker-port.js';
import type { HostNetOps } from '../../hostnet/ops.js';
import type { CommandRunner } from '../../exec/command-runner.js';
import type { SimulatorStatus } from '../../bridge/control-topics.js';

/** The simulator's control link as the orchestrator on the host uses it. */
export interface ControlLink {
  /** Resolves once every vehicle has connected to the simulator. */
  waitForVehicles(names: readonly string[], timeoutMs: number): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Every /cavsim/status the simulator publishes: phase, sim time, cars, min TTC, lateness. */
  onStatus(listener: (status: SimulatorStatus) => void): void;
  close(): Promise<void>;
}

/** Every side effect of an emulated run, passed in: real ports in production, fakes in tests. */
export interface EmulatedRunDeps {
  docker: DockerPort;
  hostNet: HostNetOps;
  runner: CommandRunner;
  connectControl(url: string, timeoutMs: number): Promise<ControlLink>;
  /** Repository root: the build context for the images and the built-in ns-3 programs. */
  repoRoot: string;
}
