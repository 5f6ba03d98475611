// biome-ignore-all lint/suspicious/noExplicitAny: Docker's JSON is untyped; callers read the fields they know
type Json = Record<string, any>;

/* The parts of dockerode cavsim uses. Tests pass a recording fake with the same shape. */
export interface DockerodeLike {
  ping(): Promise<unknown>;
  getImage(name: string): { inspect(): Promise<Json>; remove(options: Json): Promise<unknown>; get(): Promise<NodeJS.ReadableStream> };
  loadImage(tar: NodeJS.ReadableStream, options?: Json): Promise<NodeJS.ReadableStream>;
  listImages(options: Json): Promise<Json[]>;
  buildImage(context: { context: string; src: string[] }, options: Json): Promise<NodeJS.ReadableStream>;
  createNetwork(options: Json): Promise<{ id: string }>;
  getNetwork(id: string): { inspect(): Promise<Json>; remove(): Promise<unknown> };
  listNetworks(options: Json): Promise<Json[]>;
  createContainer(options: Json): Promise<{ id: string }>;
  getContainer(id: string): {
    start(): Promise<unknown>;
    stop(options: Json): Promise<unknown>;
    remove(options: Json): Promise<unknown>;
    inspect(): Promise<Json>;
    exec(options: Json): Promise<{
      start(options: Json): Promise<NodeJS.ReadableStream>;
      inspect(): Promise<Json>;
    }>;
    logs?(options: Json): Promise<Buffer | NodeJS.ReadableStream>;
    wait(options: Json): Promise<Json>;
    attach(options: Json): Promise<NodeJS.ReadWriteStream>;
    putArchive?(file: Buffer, options: Json): Promise<unknown>;
  };
  listContainers(options: Json): Promise<Json[]>;
}
