import { Duplex, Readable } from 'node:stream';
import type { DockerodeLike } from '../../../../src/host/docker/dockerode-port.js';
import { dockerFrame } from '../../../../src/host/docker/streams.js';

type Json = Record<string, any>;

/** An error shaped like docker-modem's: HTTP status in `statusCode`, engine message in `json`. */
export function engineError(statusCode: number, message: string): Error {
  return Object.assign(new Error(`(HTTP code ${statusCode}) ${message}`), { statusCode, json: { message } });
}

interface FakeContainer {
  id: string;
  name: string;
  options: Json;
  running: boolean;
  pid: number;
  exitCode?: number;
}

/**
 * A recording, in-memory stand-in for dockerode. Every engine call is logged in `calls`;
 * `failOnCall(n)` makes the n-th call (1-based, counted from now) throw, like an engine hiccup.
 */
export class FakeDockerode implements DockerodeLike {
  readonly calls: string[] = [];
  readonly images = new Map<string, Json>();
  readonly networks = new Map<string, { id: string; name: string; options: Json }>();
  readonly containers = new Map<string, FakeContainer>();
  buildOutput: Json[] = [{ stream: 'Step 1/2 : FROM base\n' }, { stream: 'Step 2/2 : COPY dist ./dist\n' }];
  reachable = true;
  /** What a container run by `runToCompletion` got on stdin, by name; and what it answers (exit code, stdout). */
  readonly stdinOf = new Map<string, string>();
  oneShot: (options: Json, input: string) => { exitCode: number; stdout: string } = () => ({ exitCode: 0, stdout: '' });
  /** Execs that were fed stdin: the container, the command and its input (answered by `oneShot`). */
  readonly execInputs: Array<{ container: string; cmd: string[]; input: string }> = [];
  private failAt?: { n: number; error: Error };
  private nextId = 1;
  private nextPid = 4000;

  failOnCall(n: number, error: Error = engineError(500, 'injected failure')): void {
    this.failAt = { n: this.calls.length + n, error };
  }

  ping = async () => {
    this.call('ping');
    return 'OK';
  };

  getImage = (name: string) => ({
    inspect: async () => {
      this.call(`inspectImage ${name}`);
      const image = this.images.get(name);
      if (!image) throw engineError(404, `No such image: ${name}`);
      return image;
    },
    remove: async (_options: Json) => {
      this.call(`removeImage ${name}`);
      const key = this.findImageKey(name);
      if (key === undefined) throw engineError(404, `No such image: ${name}`);
      const id = this.images.get(key)!.Id;
      if ([...this.containers.values()].some((c) => this.images.get(c.options.Image)?.Id === id || c.options.Image === id)) {
        throw engineError(409, `conflict: unable to delete ${id} - image is being used by a container`);
      }
      this.images.delete(key);
    },
    /** `docker save`, as this fake's own format: the image's JSON (another fake's loadImage reads it). */
    get: async () => {
      this.call(`saveImage ${name}`);
      const image = this.images.get(this.findImageKey(name) ?? '');
      if (!image) throw engineError(404, `No such image: ${name}`);
      return Readable.from([JSON.stringify(image)]);
    },
  });

  loadImage = async (tar: NodeJS.ReadableStream) => {
    this.call('loadImage');
    let text = '';
    for await (const chunk of tar as AsyncIterable<Buffer | string>) text += chunk.toString();
    const image = JSON.parse(text) as Json;
    for (const tag of image.RepoTags ?? []) {
      const previous = this.images.get(tag);
      if (previous && previous.Id !== image.Id) this.images.set(previous.Id, { ...previous, RepoTags: [] });
      this.images.set(tag, image);
    }
    return Readable.from([`${JSON.stringify({ stream: `Loaded image: ${image.RepoTags?.[0]}\n` })}\n`]);
  };

  listImages = async (options: Json) => {
    this.call('listImages');
    const danglingOnly = options.filters?.dangling?.[0] === 'true';
    return [...this.images.values()]
      .filter((i) => !danglingOnly || (i.RepoTags ?? []).length === 0)
      .filter((i) => matches(i.Config?.Labels ?? {}, options.filters?.label))
      .map((i) => ({ Id: i.Id, RepoTags: i.RepoTags, Labels: i.Config?.Labels ?? {}, Created: 1795330000 }));
  };

  /** An image with no tag left, as a rebuild leaves the previous one (kept under its id). */
  addUntaggedImage(id: string, labels: Record<string, string>): void {
    this.images.set(id, { Id: id, RepoTags: [], Config: { Labels: labels } });
  }

  buildImage = async (context: { context: string; src: string[] }, options: Json) => {
    this.call(`buildImage ${options.t}`);
    const tag = String(options.t);
    const previous = this.images.get(tag);
    // Like the engine: the tag moves to the new image; the old one stays, untagged, under its id.
    if (previous) this.images.set(previous.Id, { ...previous, RepoTags: [] });
    this.images.set(tag, {
      Id: `sha256:${this.id()}`,
      RepoTags: [tag],
      Config: { Labels: options.labels },
      buildArgs: options.buildargs,
      dockerfile: options.dockerfile,
      context,
    });
    return Readable.from(this.buildOutput.map((m) => `${JSON.stringify(m)}\r\n`));
  };

  createNetwork = async (options: Json) => {
    this.call(`createNetwork ${options.Name}`);
    if (this.findNetwork(options.Name)) throw engineError(409, `network with name ${options.Name} already exists`);
    const id = this.id();
    this.networks.set(id, { id, name: options.Name, options });
    return { id };
  };

  getNetwork = (nameOrId: string) => ({
    inspect: async () => {
      this.call(`inspectNetwork ${nameOrId}`);
      return this.networkJson(this.requireNetwork(nameOrId));
    },
    remove: async () => {
      this.call(`removeNetwork ${nameOrId}`);
      const network = this.requireNetwork(nameOrId);
      if ([...this.containers.values()].some((c) => c.options.HostConfig?.NetworkMode === network.name)) {
        throw engineError(403, `error while removing network: network ${network.name} has active endpoints`);
      }
      this.networks.delete(network.id);
    },
  });

  listNetworks = async (options: Json) => {
    this.call('listNetworks');
    return [...this.networks.values()].map((n) => this.networkJson(n)).filter((n) => matches(n.Labels, options.filters?.label));
  };

  createContainer = async (options: Json) => {
    this.call(`createContainer ${options.name}`);
    if (this.findContainer(options.name)) throw engineError(409, `Conflict. The container name "/${options.name}" is already in use`);
    const network = options.HostConfig?.NetworkMode;
    // Docker's own modes need no network of that name: none, host, container:<name>.
    const ownMode = network === 'none' || network === 'host' || network?.startsWith('container:');
    if (network && !ownMode && !this.findNetwork(network)) throw engineError(404, `network ${network} not found`);
    if (!this.images.has(options.Image)) throw engineError(404, `No such image: ${options.Image}`);
    const id = this.id();
    this.containers.set(id, { id, name: options.name, options, running: false, pid: 0 });
    return { id };
  };

  getContainer = (nameOrId: string) => ({
    start: async () => {
      this.call(`startContainer ${nameOrId}`);
      const c = this.requireContainer(nameOrId);
      c.running = true;
      c.pid = this.nextPid++;
    },
    stop: async (_options: Json) => {
      this.call(`stopContainer ${nameOrId}`);
      const c = this.requireContainer(nameOrId);
      if (!c.running) throw engineError(304, 'container already stopped');
      c.running = false;
      c.pid = 0;
    },
    remove: async (options: Json) => {
      this.call(`removeContainer ${nameOrId}`);
      const c = this.requireContainer(nameOrId);
      if (c.running && !options.force) throw engineError(409, 'You cannot remove a running container');
      this.containers.delete(c.id);
    },
    wait: async (options: Json) => {
      this.call(`waitContainer ${nameOrId}`);
      const c = this.requireContainer(nameOrId);
      while (c.running) {
        if (options.abortSignal?.aborted) throw new Error('aborted');
        await new Promise((r) => setTimeout(r, 5));
      }
      return { StatusCode: c.exitCode ?? 0 };
    },
    inspect: async () => {
      this.call(`inspectContainer ${nameOrId}`);
      return this.containerJson(this.requireContainer(nameOrId));
    },
    attach: async (_options: Json) => {
      this.call(`attach ${nameOrId}`);
      const c = this.requireContainer(nameOrId);
      return answeringStdin((input) => {
        this.stdinOf.set(c.name, input);
        const answer = this.oneShot(c.options, input);
        c.exitCode = answer.exitCode;
        c.running = false;
        return answer.stdout;
      });
    },
    exec: async (options: Json) => {
      this.call(`exec ${nameOrId} ${options.Cmd.join(' ')}`);
      const c = this.requireContainer(nameOrId);
      if (!c.running) throw engineError(409, `Container ${c.id} is not running`);
      if (options.AttachStdin) {
        // what the program got on stdin (read to EOF) decides its answer, as a one-shot container's does
        let exitCode = 0;
        return {
          start: async (_options: Json) =>
            answeringStdin((input) => {
              this.execInputs.push({ container: c.name, cmd: options.Cmd, input });
              const answer = this.oneShot({ ...c.options, Cmd: options.Cmd }, input);
              exitCode = answer.exitCode;
              return answer.stdout;
            }),
          inspect: async () => ({ Running: false, ExitCode: exitCode }),
        };
      }
      return {
        start: async (_options: Json) => Readable.from([dockerFrame(1, 'v18.20.4\n'), dockerFrame(2, 'warning\n')]),
        inspect: async () => ({ Running: false, ExitCode: 0 }),
      };
    },
  });

  listContainers = async (options: Json) => {
    this.call('listContainers');
    return [...this.containers.values()]
      .filter((c) => options.all || c.running)
      .map((c) => ({
        Id: c.id,
        Names: [`/${c.name}`],
        Image: c.options.Image,
        ImageID: this.images.get(c.options.Image)?.Id ?? c.options.Image,
        Labels: c.options.Labels ?? {},
        State: c.running ? 'running' : 'created',
      }))
      .filter((c) => matches(c.Labels, options.filters?.label));
  };

  private call(what: string): void {
    this.calls.push(what);
    if (!this.reachable) throw Object.assign(new Error('connect ENOENT /var/run/docker.sock'), { code: 'ENOENT' });
    if (this.failAt && this.calls.length === this.failAt.n) {
      const { error } = this.failAt;
      this.failAt = undefined;
      throw error;
    }
  }

  private id(): string {
    return (this.nextId++).toString(16).padStart(12, '0');
  }

  private findImageKey(nameOrId: string): string | undefined {
    if (this.images.has(nameOrId)) return nameOrId;
    return [...this.images.entries()].find(([, i]) => i.Id === nameOrId)?.[0];
  }

  private findNetwork(nameOrId: string) {
    return [...this.networks.values()].find((n) => n.id === nameOrId || n.name === nameOrId);
  }

  private requireNetwork(nameOrId: string) {
    const found = this.findNetwork(nameOrId);
    if (!found) throw engineError(404, `network ${nameOrId} not found`);
    return found;
  }

  private findContainer(nameOrId: string) {
    return [...this.containers.values()].find((c) => c.id === nameOrId || c.name === nameOrId);
  }

  private requireContainer(nameOrId: string) {
    const found = this.findContainer(nameOrId);
    if (!found) throw engineError(404, `No such container: ${nameOrId}`);
    return found;
  }

  private networkJson(n: { id: string; name: string; options: Json }): Json {
    return { Id: n.id, Name: n.name, Labels: n.options.Labels ?? {}, IPAM: n.options.IPAM ?? { Config: [] } };
  }

  private containerJson(c: FakeContainer): Json {
    const network: string | undefined = c.options.HostConfig?.NetworkMode;
    const ip = network ? (c.options.NetworkingConfig?.EndpointsConfig?.[network]?.IPAMConfig?.IPv4Address ?? '10.0.0.99') : undefined;
    return {
      Id: c.id,
      Name: `/${c.name}`,
      Config: { Image: c.options.Image, Labels: c.options.Labels ?? {} },
      HostConfig: c.options.HostConfig,
      State: { Status: c.running ? 'running' : 'created', Running: c.running, Pid: c.pid, ExitCode: 0 },
      NetworkSettings: { Networks: network && c.running ? { [network]: { IPAddress: ip } } : {} },
    };
  }
}

function matches(labels: Record<string, string>, filter: string[] | undefined): boolean {
  return (filter ?? []).every((f) => {
    const [key, value] = f.includes('=') ? [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)] : [f, undefined];
    return key in labels && (value === undefined || labels[key] === value);
  });
}

/** A hijacked stream whose program reads stdin to EOF, then answers with `answer(input)` on stdout. */
function answeringStdin(answer: (input: string) => string): Duplex {
  let input = '';
  const stream: Duplex = new Duplex({
    read() {},
    write(chunk, _encoding, done) {
      input += chunk.toString();
      done();
    },
    final: (done) => {
      stream.push(dockerFrame(1, answer(input)));
      stream.push(null);
      done();
    },
  });
  return stream;
}
