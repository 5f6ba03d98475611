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
  if (info.size > maxBytes) return { ok: false, problem: `is ${(info.size / 1024 ** 2).toFixed(1)} MiB; at most ${Math.round(maxBytes / 1024 ** 2)} MiB is read` };
  try {
    return { ok: true, text: await readFile(path, 'utf8') };
  } catch (err) {
    return { ok: false, problem: `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
}
