import type { ArchiveFile } from './tar-archive.js';
/**
 * The narrow surface through which cavsim talks to the Docker engine. Only `dockerode-port.ts`
 * implements it over dockerode; everything else takes a DockerPort as a parameter.
 */
export interface DockerPort {
  /** Resolves when the engine answers; throws EnvironmentError (with a fix) when it does not. */
  ping(): Promise<void>;
  inspectImage(tag: string): Promise<ImageInfo | undefined>;
  /** Builds from a prepared context directory; `onOutput` receives the build's output line by line. */
  buildImage(request: BuildRequest, onOutput?: (line: string) => void): Promise<ImageInfo>;
  /** Images carrying the labels; with `danglingOnly`, only those that no tag points to any more. */
  listImages(labels: LabelFilter, opts?: { danglingOnly?: boolean }): Promise<ImageInfo[]>;
  /** Never forced: 'in-use' when a container (running or not) or another image still needs it. */
  removeImage(id: string): Promise<RemoveOutcome | 'in-use'>;
  /** Ids of the images that existing containers, running or not, were created from. */
  imageIdsInUse(): Promise<Set<string>>;

  createNetwork(spec: NetworkSpec): Promise<{ id: string }>;
  inspectNetwork(nameOrId: string): Promise<NetworkInfo | undefined>;
  /** Idempotent: a network that does not exist reports 'absent'. */
  removeNetwork(nameOrId: string): Promise<RemoveOutcome>;
  listNetworks(labels: LabelFilter): Promise<NetworkInfo[]>;

  createContainer(spec: ContainerSpec): Promise<{ id: string }>;
  startContainer(nameOrId: string): Promise<void>;
  /** Sends SIGTERM, then SIGKILL after `timeoutSeconds`. Stopping a stopped container is harmless. */
  stopContainer(nameOrId: string, timeoutSeconds: number): Promise<void>;
  /** Idempotent: a container that does not exist reports 'absent'. */
  removeContainer(nameOrId: string, opts?: { force?: boolean }): Promise<RemoveOutcome>;
  inspectContainer(nameOrId: string): Promise<ContainerInfo | undefined>;
  /** All containers (running or not) carrying the given labels. */
  listContainers(labels: LabelFilter): Promise<ContainerSummary[]>;
  /** Runs `cmd` in a running container; `input` is fed on its stdin, then EOF. */
  exec(nameOrId: string, cmd: readonly string[], opts?: { env?: Record<string, string>; input?: string }): Promise<ExecResult>;
  /** A container's stdout and stderr so far (interleaved), or undefined when it does not exist. */
  logs?(nameOrId: string): Promise<string | undefined>;
  /**
   * Resolves when the container stops running (at once if it is not running), with its exit code;
   * `undefined` when the container does not exist or was removed while waited on.
   */
  waitContainer(nameOrId: string, opts?: { signal?: AbortSignal }): Promise<{ exitCode: number } | undefined>;
  /** The image as `docker save` writes it (a tar stream), to load into another engine. */
  saveImage(nameOrId: string): Promise<NodeJS.ReadableStream>;
  /** Loads a `docker save` tar stream (`docker load`); resolves once the engine has the image. */
  loadImage(tar: NodeJS.ReadableStream): Promise<void>;
  /**
   * Creates the container, feeds it `input` on stdin (then EOF), starts it, waits for it to exit and
   * removes it: a short-lived helper's output and exit code (a host-side step on a remote host).
   */
  runToCompletion(spec: ContainerSpec, opts?: { input?: string }): Promise<ExecResult>;
  /** Writes files into a container (created, not necessarily started) under `dir`, which must exist there. */
  putFiles?(nameOrId: string, dir: string, files: readonly ArchiveFile[]): Promise<void>;
}

export type RemoveOutcome = 'removed' | 'absent';

/** Label key to required value; `true` means "the key is present, any value". */
export type LabelFilter = Record<string, string | true>;

export interface ImageInfo {
  id: string;
  tags: string[];
  labels: Record<string, string>;
  createdAt: string;
}

export interface BuildRequest {
  /** Directory holding the whole build context (already reduced to what the image needs). */
  contextDir: string;
  /** Entries of contextDir to send to the engine (files or directories, relative). */
  include: readonly string[];
  /** Dockerfile path relative to contextDir. */
  dockerfile: string;
  tag: string;
  buildArgs?: Record<string, string>;
  labels?: Record<string, string>;
}

export interface NetworkSpec {
  name: string;
  labels: Record<string, string>;
  /** IPv4 CIDR such as 10.77.0.0/24; needed when containers get fixed addresses. */
  subnet?: string;
  gateway?: string;
  /** No route to the outside world. */
  internal?: boolean;
}

export interface NetworkInfo {
  id: string;
  name: string;
  labels: Record<string, string>;
  subnet?: string;
}

export interface BindMount {
  hostPath: string;
  containerPath: string;
  readOnly?: boolean;
}

export interface ContainerResources {
  /** CPU quota in units of 1e-9 CPUs (Docker's NanoCpus). */
  nanoCpus?: number;
  memoryBytes?: number;
  /** Relative CPU weight under contention (Docker's CpuShares; 1024 is a normal container). */
  cpuShares?: number;
}

export interface ContainerSpec {
  name: string;
  image: string;
  labels: Record<string, string>;
  cmd?: readonly string[];
  entrypoint?: readonly string[];
  env?: Record<string, string>;
  workingDir?: string;
  binds?: readonly BindMount[];
  network?: { name: string; ipv4Address?: string; aliases?: readonly string[] };
  /** Join this container's network namespace instead of a network (Docker's `--network container:NAME`). */
  shareNetworkOf?: string;
  /** Use the host's network namespace (Docker's `--network host`): loopback is the host's. */
  hostNetwork?: boolean;
  /**
   * A network namespace of its own with only loopback, Docker's networking left out entirely
   * (`NetworkDisabled`): the host plumbs its interfaces. Starts about 0.3-0.6 s faster a container
   * on a small machine: Docker runs no libnetwork hook (a re-exec of dockerd) and no endpoint.
   */
  plumbedByHost?: boolean;
  capAdd?: readonly string[];
  /** Join the host's pid namespace (Docker's `--pid host`): `nsenter` into another container's namespaces. */
  hostPid?: boolean;
  /** Docker's `--security-opt` values, e.g. `seccomp=unconfined`. */
  securityOpt?: readonly string[];
  /** No masked or read-only /proc paths (the CLI's `--security-opt systempaths=unconfined`): /proc/sys writable. */
  unmaskedPaths?: boolean;
  /** Capabilities taken away, e.g. NET_RAW so the container cannot forge frames. */
  capDrop?: readonly string[];
  resources?: ContainerResources;
  /** Run Docker's tiny init as PID 1 so signals reach the program and zombies are reaped. */
  init?: boolean;
}

export interface ContainerSummary {
  id: string;
  name: string;
  image: string;
  labels: Record<string, string>;
  /** Docker's state word: created, running, exited, ... */
  state: string;
  running: boolean;
}

export interface ContainerInfo extends ContainerSummary {
  /** Host PID of the container's init process; 0 when not running. */
  pid: number;
  exitCode?: number;
  /** IPv4 address on each attached network, by network name. */
  ipv4ByNetwork: Record<string, string>;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}
