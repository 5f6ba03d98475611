import { ftruncateSync, writeSync } from 'node:fs';
import { basename } from 'node:path';

const FULL = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/** A file of the run could not grow: its filesystem (the runs folder) is full. */
export class NoSpaceError extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
  ) {
    super(
      `the runs folder is full (${code}): ${basename(path)} could not grow, and the run ended there (its CSVs end on their last whole row). Free space there, or give --runs-dir a larger disk`,
    );
    this.name = 'NoSpaceError';
  }
}

export const isNoSpace = (err: unknown): boolean => FULL.has((err as NodeJS.ErrnoException)?.code ?? '');

/**
 * Writes all of `bytes` at offset `size` of the file (its current end), or none of them: a write
 * that fails half-way is cut back, so a log on a full disk still ends on a whole row. Returns the
 * new size. A full filesystem throws NoSpaceError.
 */
export function appendWhole(fd: number, path: string, bytes: Uint8Array, size: number, length = bytes.length): number {
  let done = 0;
  try {
    while (done < length) done += writeSync(fd, bytes, done, length - done, size + done);
  } catch (err) {
    if (done) {
      try {
        ftruncateSync(fd, size);
      } catch {
        // Cutting back frees space and cannot itself run out of it; a failure here leaves the half row.
      }
    }
    throw isNoSpace(err) ? new NoSpaceError(path, (err as NodeJS.ErrnoException).code!) : err;
  }
  return size + done;
}
