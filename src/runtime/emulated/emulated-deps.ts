import type { ChannelStart, StartedChannel } from '../../channel/ns3/realtime-channel.js';
import type { Odometry } from '../../core/control/vehicle-context.js';
import type { DockerPort } from '../../host/docker/docker-port.js';
import type { CommandRunner } from '../../host/exec/command-runner.js';
import type { JournalEntry } from '../../host/journal/journal.js';
import type { HostNetOps } from '../../host/network/hostnet-port.js';
import type { LinkBytes } from '../../host/network/link-bytes.js';
import type { TunnelHosts } from '../../host/network/tunnel-apply.js';
import type { SimulatorStatus } from '../rosbridge/control-topics.js';

/** The simulator's control link as the orchestrator on the host uses it. */
export interface ControlLink {
  /** Resolves once every vehicle has connected to the simulator. */
  waitForVehicles(names: readonly string[], timeoutMs: number): Promise<void>;
  /** Starts the run; resolves to its t = 0 on the wall clock [ns since the epoch], when known. */
  // biome-ignore lint/suspicious/noConfusingVoidType: an async function that returns nothing is a Promise<void>
  start(): Promise<bigint | void>;
  /** Asks the simulator to end the run now (status `interrupted` unless the host decides otherwise). */
  stop(reason?: string): Promise<void>;
  /** Every /cavsim/status the simulator publishes: phase, sim time, cars, min TTC, lateness. */
  onStatus(listener: (status: SimulatorStatus) => void): void;
  /** Every odometry the simulator publishes for `car` (each physics step). */
  onOdometry(car: string, listener: (odometry: Odometry) => void): void;
  /** Resolves when the link is gone, whoever closed it. */
  readonly closed: Promise<unknown>;
  close(): Promise<void>;
}

/** Every side effect of an emulated run, passed in: real ports in production, fakes in tests. */
export interface EmulatedRunDeps {
  docker: DockerPort;
  hostNet: HostNetOps;
  runner: CommandRunner;
  connectControl(url: string, timeoutMs: number): Promise<ControlLink>;
  /** Builds the simulator and vehicle images when missing or older than the code; reports progress. */
  prepareImages(report: (line: string) => void): Promise<void>;
  /** The ns-3 channel program: compiled once (cached), started per run. */
  channel: {
    compile(sourcePath: string): Promise<string>;
    start(p: ChannelStart): Promise<StartedChannel>;
  };
  /** Repository root: the build context for the images and the built-in ns-3 programs. */
  repoRoot: string;
  /** An interface's byte counters, for external devices' V2V links; without it their load is not measured. */
  linkBytes?: (name: string) => LinkBytes | undefined;
  /** The build has the light-car program (light-car.ts), so cars that may run it do; absent: every car runs Node's. */
  lightCarProgram?: boolean;
  /** The hosts of a hosts file (`cavsim up --hosts`), engines already answering; without it every car runs here. */
  remote?: { file: string; hosts: RemoteHost[] };
  /** Set by the run once cars run on other hosts: where each tunnel step's host is, for the journal's undoers. */
  tunnelHosts?: TunnelHosts;
  /**
   * Set by the run once cars run on other hosts: the ports for its logs and teardown, each host's
   * engine pinged first, so one that stopped answering is named (its entries kept) instead of waited on.
   */
  endPorts?: (entries: readonly JournalEntry[]) => Promise<Pick<EmulatedRunDeps, 'docker' | 'hostNet' | 'tunnelHosts'>>;
}

/** A host of the hosts file: its index there (its control VNI), its tunnel address (none: the run's own engine) and its engine. */
export interface RemoteHost {
  name: string;
  index: number;
  tunnelAddress?: string;
  /** The hosts file's `cores`: placement deals cars in proportion to it. */
  cores?: number;
  docker: DockerPort;
}
