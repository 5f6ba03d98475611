// biome-ignore-all lint/suspicious/noExplicitAny: Docker's JSON (load progress, wait results) is untyped
import { CavsimError } from '../../errors.js';
import type { ExecResult } from './docker-port.js';
import type { DockerodeLike } from './dockerode-like.js';
import { demuxDockerStream, readJsonLines } from './streams.js';

type Json = Record<string, any>;

/** `docker load` of a `docker save` stream; the engine reports a bad archive in its progress, not its status. */
export async function loadImageInto(client: DockerodeLike, tar: NodeJS.ReadableStream): Promise<void> {
  const progress = await client.loadImage(tar, { quiet: true });
  for await (const message of readJsonLines(progress)) {
    if (message.error || message.errorDetail)
      throw new CavsimError('EXTERNAL_PROCESS', `docker load failed: ${String(message.error ?? message.errorDetail?.message)}`);
  }
}

/**
 * A short-lived container: created with stdin open (closed after `input`), attached before it starts
 * so no output is lost, waited for, then removed whatever happened.
 */
export async function runContainerToCompletion(client: DockerodeLike, options: Json, input = ''): Promise<ExecResult> {
  const { id } = await client.createContainer({
    ...options,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: true,
    Tty: false,
  });
  const container = client.getContainer(id);
  try {
    const stream = await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true });
    const output = demuxDockerStream(stream);
    await container.start();
    stream.end(input);
    const [{ stdout, stderr }, waited] = await Promise.all([output, container.wait({})]);
    return { exitCode: Number(waited.StatusCode ?? -1), stdout, stderr };
  } finally {
    await container.remove({ force: true, v: true }).catch(() => {});
  }
}
