// biome-ignore-all lint/suspicious/noExplicitAny: Docker's JSON (progress lines, inspect results) is untyped; callers read the fields they know
import Dockerode from 'dockerode';
import { CavsimError, EnvironmentError } from '../../errors.js';
import { asRoot } from '../exec/as-root.js';
import type {
  BuildRequest,
  ContainerInfo,
  ContainerSpec,
  ContainerSummary,
  DockerPort,
  ExecResult,
  ImageInfo,
  LabelFilter,
  NetworkInfo,
  NetworkSpec,
  RemoveOutcome,
} from './docker-port.js';
import type { DockerodeLike } from './dockerode-like.js';
import { toDockerLabelFilter } from './labels.js';
import { loadImageInto, runContainerToCompletion } from './one-shot.js';
import { demuxDockerStream, readJsonLines } from './streams.js';
import { tarArchive } from './tar-archive.js';

export type { DockerodeLike } from './dockerode-like.js';

type Json = Record<string, any>;

const engineHint = () => `Start the engine with \`${asRoot('scripts/setup-docker.sh')}\`, then check with \`cavsim doctor\`.`;

/** Connects to the local engine (DOCKER_HOST or /var/run/docker.sock). Each call makes a new client. */
export function connectDocker(options?: Dockerode.DockerOptions): DockerPort {
  return createDockerPort(new Dockerode(options));
}

export function createDockerPort(client: DockerodeLike): DockerPort {
  return {
    async ping() {
      try {
        await client.ping();
      } catch (err) {
        throw new EnvironmentError(`Docker engine not reachable: ${messageOf(err)}`, engineHint());
      }
    },

    async inspectImage(tag) {
      const raw = await orUndefinedIfMissing(() => client.getImage(tag).inspect());
      return raw && toImageInfo(raw);
    },

    async buildImage(request, onOutput) {
      const stream = await engineCall(`build image ${request.tag}`, () =>
        client.buildImage(
          { context: request.contextDir, src: [...request.include] },
          {
            t: request.tag,
            dockerfile: request.dockerfile,
            buildargs: request.buildArgs ?? {},
            labels: request.labels ?? {},
            rm: true,
            forcerm: true,
          },
        ),
      );
      await followBuild(stream, request, onOutput);
      const built = await this.inspectImage(request.tag);
      if (!built) throw new CavsimError('EXTERNAL_PROCESS', `docker build finished but ${request.tag} is missing`);
      return built;
    },

    async listImages(labels, opts = {}) {
      const filters = { ...labelFilters(labels), ...(opts.danglingOnly ? { dangling: ['true'] } : {}) };
      const raw = await engineCall('list images', () => client.listImages({ filters }));
      // The list endpoint names fields differently from inspect (Labels, RepoTags, Created in seconds).
      return raw.map((i) =>
        toImageInfo({
          Id: i.Id,
          RepoTags: i.RepoTags,
          Config: { Labels: i.Labels },
          Created: new Date(Number(i.Created) * 1000).toISOString(),
        }),
      );
    },

    async removeImage(id) {
      try {
        await client.getImage(id).remove({ force: false, noprune: false });
        return 'removed';
      } catch (err) {
        if (statusOf(err) === 404) return 'absent';
        if (statusOf(err) === 409) return 'in-use';
        throw engineError(`remove image ${id}`, err);
      }
    },

    async imageIdsInUse() {
      const raw = await engineCall('list containers', () => client.listContainers({ all: true }));
      return new Set(raw.map((c) => String(c.ImageID ?? '')).filter(Boolean));
    },

    async createNetwork(spec) {
      const network = await engineCall(`create network ${spec.name}`, () => client.createNetwork(networkOptions(spec)));
      return { id: network.id };
    },

    async inspectNetwork(nameOrId) {
      const raw = await orUndefinedIfMissing(() => client.getNetwork(nameOrId).inspect());
      return raw && toNetworkInfo(raw);
    },

    async removeNetwork(nameOrId) {
      return removeIdempotently(`remove network ${nameOrId}`, () => client.getNetwork(nameOrId).remove());
    },

    async listNetworks(labels) {
      const raw = await engineCall('list networks', () => client.listNetworks({ filters: labelFilters(labels) }));
      return raw.map(toNetworkInfo);
    },

    async createContainer(spec) {
      const container = await engineCall(`create container ${spec.name}`, () => client.createContainer(containerOptions(spec)));
      return { id: container.id };
    },

    async startContainer(nameOrId) {
      await engineCall(`start container ${nameOrId}`, () => client.getContainer(nameOrId).start());
    },

    async stopContainer(nameOrId, timeoutSeconds) {
      try {
        await client.getContainer(nameOrId).stop({ t: timeoutSeconds });
      } catch (err) {
        if (statusOf(err) === 304) return; // already stopped
        throw engineError(`stop container ${nameOrId}`, err);
      }
    },

    async removeContainer(nameOrId, opts = {}) {
      return removeIdempotently(`remove container ${nameOrId}`, () =>
        client.getContainer(nameOrId).remove({ force: opts.force ?? false, v: true }),
      );
    },

    async inspectContainer(nameOrId) {
      const raw = await orUndefinedIfMissing(() => client.getContainer(nameOrId).inspect());
      return raw && toContainerInfo(raw);
    },

    async listContainers(labels) {
      const raw = await engineCall('list containers', () => client.listContainers({ all: true, filters: labelFilters(labels) }));
      return raw.map(toContainerSummary);
    },

    async exec(nameOrId, cmd, opts = {}) {
      return engineCall(`exec in ${nameOrId}: ${cmd.join(' ')}`, async () => {
        const withInput = opts.input !== undefined;
        const exec = await client.getContainer(nameOrId).exec({
          Cmd: [...cmd],
          Env: Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`),
          AttachStdin: withInput,
          AttachStdout: true,
          AttachStderr: true,
        });
        const stream = await exec.start({ hijack: true, stdin: withInput });
        const output = demuxDockerStream(stream);
        // closing our side of the hijacked connection is the program's EOF
        if (opts.input !== undefined) (stream as NodeJS.ReadWriteStream).end(opts.input);
        const { stdout, stderr } = await output;
        return { exitCode: await exitCodeOf(exec), stdout, stderr } satisfies ExecResult;
      });
    },

    async waitContainer(nameOrId, opts = {}) {
      try {
        const raw = (await client.getContainer(nameOrId).wait(opts.signal ? { abortSignal: opts.signal } : {})) as { StatusCode?: number };
        return { exitCode: raw.StatusCode ?? -1 };
      } catch (err) {
        if (statusOf(err) === 404) return undefined;
        throw engineError(`wait for container ${nameOrId}`, err);
      }
    },

    async logs(nameOrId) {
      const container = client.getContainer(nameOrId);
      if (!container.logs) return undefined;
      const raw = await orUndefinedIfMissing(() => container.logs!({ stdout: true, stderr: true, follow: false }));
      if (raw === undefined) return undefined;
      // Without a TTY the engine multiplexes both streams with 8-byte frame headers.
      const buf = Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw));
      return demuxBuffer(buf);
    },

    async putFiles(nameOrId, dir, files) {
      const container = client.getContainer(nameOrId);
      await engineCall(`put files into ${nameOrId}`, () => container.putArchive!(tarArchive(files), { path: dir }));
    },

    async saveImage(nameOrId) {
      return engineCall(`save image ${nameOrId}`, () => client.getImage(nameOrId).get());
    },

    async loadImage(tar) {
      await engineCall('load image', () => loadImageInto(client, tar));
    },

    async runToCompletion(spec, opts = {}) {
      return engineCall(`run container ${spec.name}`, () => runContainerToCompletion(client, containerOptions(spec), opts.input));
    },
  };
}

function demuxBuffer(buf: Buffer): string {
  const parts: string[] = [];
  let offset = 0;
  while (offset + 8 <= buf.length && (buf[offset] === 1 || buf[offset] === 2) && buf.readUInt16BE(offset + 1) === 0) {
    const size = buf.readUInt32BE(offset + 4);
    parts.push(buf.subarray(offset + 8, offset + 8 + size).toString('utf8'));
    offset += 8 + size;
  }
  return offset === 0 ? buf.toString('utf8') : parts.join('');
}

function networkOptions(spec: NetworkSpec): Json {
  return {
    Name: spec.name,
    Driver: 'bridge',
    CheckDuplicate: true,
    Internal: spec.internal ?? false,
    Labels: spec.labels,
    ...(spec.subnet
      ? { IPAM: { Driver: 'default', Config: [{ Subnet: spec.subnet, ...(spec.gateway ? { Gateway: spec.gateway } : {}) }] } }
      : {}),
  };
}

export function containerOptions(spec: ContainerSpec): Json {
  const network = spec.network;
  return {
    name: spec.name,
    Image: spec.image,
    Labels: spec.labels,
    ...(spec.cmd ? { Cmd: [...spec.cmd] } : {}),
    ...(spec.entrypoint ? { Entrypoint: [...spec.entrypoint] } : {}),
    ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
    Env: Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(spec.plumbedByHost ? { NetworkDisabled: true } : {}),
    HostConfig: {
      Binds: (spec.binds ?? []).map((b) => `${b.hostPath}:${b.containerPath}${b.readOnly ? ':ro' : ''}`),
      CapAdd: [...(spec.capAdd ?? [])],
      CapDrop: [...(spec.capDrop ?? [])],
      Init: spec.init ?? false,
      ...(spec.hostPid ? { PidMode: 'host' } : {}),
      ...(spec.securityOpt ? { SecurityOpt: [...spec.securityOpt] } : {}),
      ...(spec.unmaskedPaths ? { MaskedPaths: [], ReadonlyPaths: [] } : {}),
      ...(spec.resources?.nanoCpus ? { NanoCpus: spec.resources.nanoCpus } : {}),
      ...(spec.resources?.cpuShares ? { CpuShares: spec.resources.cpuShares } : {}),
      // Memory and swap equal: the limit is a hard cap, as on a small on-board computer.
      ...(spec.resources?.memoryBytes ? { Memory: spec.resources.memoryBytes, MemorySwap: spec.resources.memoryBytes } : {}),
      ...(network
        ? { NetworkMode: network.name }
        : spec.shareNetworkOf
          ? { NetworkMode: `container:${spec.shareNetworkOf}` }
          : spec.hostNetwork
            ? { NetworkMode: 'host' }
            : spec.plumbedByHost
              ? { NetworkMode: 'none' }
              : {}),
    },
    ...(network
      ? {
          NetworkingConfig: {
            EndpointsConfig: {
              [network.name]: {
                ...(network.ipv4Address ? { IPAMConfig: { IPv4Address: network.ipv4Address } } : {}),
                ...(network.aliases ? { Aliases: [...network.aliases] } : {}),
              },
            },
          },
        }
      : {}),
  };
}

async function followBuild(
  stream: NodeJS.ReadableStream,
  request: BuildRequest,
  onOutput: ((line: string) => void) | undefined,
): Promise<void> {
  const tail: string[] = [];
  for await (const message of readJsonLines(stream)) {
    const text = typeof message.stream === 'string' ? message.stream : typeof message.status === 'string' ? message.status : undefined;
    if (text !== undefined) {
      for (const line of text.split('\n').filter((l: string) => l.trim())) {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        onOutput?.(line);
      }
    }
    if (message.error || message.errorDetail) {
      const error = String(message.error ?? message.errorDetail?.message);
      throw new CavsimError(
        'EXTERNAL_PROCESS',
        `docker build of ${request.tag} failed: ${error}`,
        `Build context: ${request.contextDir} (Dockerfile ${request.dockerfile})`,
        tail,
      );
    }
  }
}

async function exitCodeOf(exec: { inspect(): Promise<Json> }): Promise<number> {
  // The output stream can end a moment before the engine records the exit code.
  for (let attempt = 0; attempt < 50; attempt++) {
    const info = await exec.inspect();
    if (!info.Running && typeof info.ExitCode === 'number') return info.ExitCode;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new CavsimError('EXTERNAL_PROCESS', 'exec finished but the engine reported no exit code');
}

function labelFilters(labels: LabelFilter): Json {
  return { label: toDockerLabelFilter(labels) };
}

function toImageInfo(raw: Json): ImageInfo {
  return {
    id: String(raw.Id),
    tags: raw.RepoTags ?? [],
    labels: raw.Config?.Labels ?? {},
    createdAt: String(raw.Created ?? ''),
  };
}

function toNetworkInfo(raw: Json): NetworkInfo {
  const subnet = raw.IPAM?.Config?.[0]?.Subnet;
  return { id: String(raw.Id), name: String(raw.Name), labels: raw.Labels ?? {}, ...(subnet ? { subnet } : {}) };
}

function toContainerSummary(raw: Json): ContainerSummary {
  const name = String(raw.Names?.[0] ?? raw.Id).replace(/^\//, '');
  return {
    id: String(raw.Id),
    name,
    image: String(raw.Image ?? ''),
    labels: raw.Labels ?? {},
    state: String(raw.State ?? 'unknown'),
    running: raw.State === 'running',
  };
}

function toContainerInfo(raw: Json): ContainerInfo {
  const networks: Record<string, Json> = raw.NetworkSettings?.Networks ?? {};
  const ipv4ByNetwork = Object.fromEntries(
    Object.entries(networks).flatMap(([name, n]) => (n.IPAddress ? [[name, String(n.IPAddress)]] : [])),
  );
  return {
    id: String(raw.Id),
    name: String(raw.Name ?? '').replace(/^\//, ''),
    image: String(raw.Config?.Image ?? raw.Image ?? ''),
    labels: raw.Config?.Labels ?? {},
    state: String(raw.State?.Status ?? 'unknown'),
    running: Boolean(raw.State?.Running),
    pid: Number(raw.State?.Pid ?? 0),
    ...(raw.State && !raw.State.Running && typeof raw.State.ExitCode === 'number' ? { exitCode: raw.State.ExitCode } : {}),
    ipv4ByNetwork,
  };
}

async function removeIdempotently(what: string, remove: () => Promise<unknown>): Promise<RemoveOutcome> {
  try {
    await remove();
    return 'removed';
  } catch (err) {
    if (statusOf(err) === 404) return 'absent';
    throw engineError(what, err);
  }
}

async function orUndefinedIfMissing<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (err) {
    if (statusOf(err) === 404) return undefined;
    throw engineError('inspect', err);
  }
}

async function engineCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof CavsimError) throw err;
    throw engineError(what, err);
  }
}

function engineError(what: string, err: unknown): CavsimError {
  if (isConnectionError(err)) {
    return new EnvironmentError(`Docker engine not reachable (${what}): ${messageOf(err)}`, engineHint());
  }
  const status = statusOf(err);
  if (status === 409 && what.startsWith('create ')) {
    // Someone else's object holds the planned name: the user's to resolve, never cavsim's to remove.
    return new EnvironmentError(
      `Docker: ${what}: the name is taken: ${messageOf(err)}`,
      `remove or rename the Docker object named ${what.split(' ').at(-1)}; cavsim never removes what it did not create`,
    );
  }
  return new CavsimError('EXTERNAL_PROCESS', `Docker: ${what} failed${status ? ` (HTTP ${status})` : ''}: ${messageOf(err)}`);
}

export function statusOf(err: unknown): number | undefined {
  const status = (err as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'EACCES' || code === 'ECONNRESET';
}

function messageOf(err: unknown): string {
  const json = (err as { json?: { message?: unknown } } | undefined)?.json;
  if (json && typeof json.message === 'string') return json.message;
  return err instanceof Error ? err.message : String(err);
}
