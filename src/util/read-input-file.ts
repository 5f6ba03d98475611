import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';

export type InputFileResult = { ok: true; text: string } | { ok: false; problem: string };

/**
 * Reads a file a scenario names (a map, a waypoint CSV) as text, refusing what would hang or
 * exhaust memory (a device such as /dev/zero, a pipe, a huge file) and saying why.
 */
export async function readInputFile(path: string, maxBytes: number): Promise<InputFileResult> {
  const info = await stat(path).catch((err: NodeJS.ErrnoException) => err);
  if (info instanceof Error) {
    const code = (info as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, problem: 'not found' };
    return { ok: false, problem: code === 'EACCES' ? 'cannot be read (permission denied)' : `cannot be read (${code ?? info.message})` };
  }
  if (info.isDirectory()) return { ok: false, problem: 'is a folder, not a file' };
  if (!info.isFile()) return { ok: false, problem: 'is not a regular file (a device, pipe or socket)' };
  if (info.size > maxBytes)
    return { ok: false, problem: `is ${(info.size / 1024 ** 2).toFixed(1)} MiB; at most ${Math.round(maxBytes / 1024 ** 2)} MiB is read` };
  try {
    return { ok: true, text: await readFile(path, 'utf8') };
  } catch (err) {
    return { ok: false, problem: `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
}

/**
 * Reads a file in a folder that others may write into (a run folder a vehicle container shares)
 * without following a link at its name, and only if it is a regular file of at most `maxBytes`:
 * a link to /dev/zero or to a host file is refused, not read.
 */
export function readRegularFileSync(path: string, maxBytes: number): InputFileResult {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, problem: 'not found' };
    if (code === 'ELOOP') return { ok: false, problem: 'is a link; cavsim does not follow links in a run folder' };
    return { ok: false, problem: `cannot be read (${code ?? (err as Error).message})` };
  }
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) return { ok: false, problem: 'is a folder, not a file' };
    if (!info.isFile()) return { ok: false, problem: 'is not a regular file (a device, pipe or socket)' };
    if (info.size > maxBytes)
      return {
        ok: false,
        problem: `is ${(info.size / 1024 ** 2).toFixed(1)} MiB; at most ${Math.round(maxBytes / 1024 ** 2)} MiB is read`,
      };
    return { ok: true, text: readFileSync(fd, 'utf8') };
  } catch (err) {
    return { ok: false, problem: `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  } finally {
    closeSync(fd);
  }
}
