import { closeSync, constants, openSync, writeFileSync } from 'node:fs';

const { O_WRONLY, O_CREAT, O_TRUNC, O_APPEND, O_NOFOLLOW } = constants;

/**
 * Opens a file cavsim writes, often as root, in a run folder: a link found at its name is refused
 * (ELOOP), never written through. (Folders above it are cavsim's own and no container can write them.)
 */
export function openForWriting(path: string, how: 'truncate' | 'append' = 'truncate'): number {
  return openSync(path, O_WRONLY | O_CREAT | O_NOFOLLOW | (how === 'append' ? O_APPEND : O_TRUNC), 0o644);
}

/** writeFileSync that refuses to follow a link at `path`. */
export function writeFileNoFollow(path: string, data: string | Uint8Array): void {
  const fd = openForWriting(path);
  try {
    writeFileSync(fd, data);
  } finally {
    closeSync(fd);
  }
}
