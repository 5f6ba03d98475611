/** A file to put into a container: its path inside the archive (relative, `/`-separated) and its bytes. */
export interface ArchiveFile {
  path: string;
  content: Buffer;
}

/**
 * A POSIX ustar archive of regular files (mode 0644, root-owned) and the directories above them
 * (0755): what the engine's "put archive" call takes. Paths up to 100 bytes, no links.
 */
export function tarArchive(files: readonly ArchiveFile[]): Buffer {
  const dirs = new Set<string>();
  for (const f of files) {
    if (f.path.startsWith('/') || f.path.split('/').includes('..') || Buffer.byteLength(f.path) > 99)
      throw new Error(`tarArchive: ${f.path} is not a short relative path`);
    const parts = f.path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(`${parts.slice(0, i).join('/')}/`);
  }
  const blocks: Buffer[] = [];
  for (const d of [...dirs].sort()) blocks.push(header(d, 0, 0o755, '5'));
  for (const f of files) {
    blocks.push(header(f.path, f.content.length, 0o644, '0'), f.content, Buffer.alloc((512 - (f.content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

function header(name: string, size: number, mode: number, type: string): Buffer {
  const h = Buffer.alloc(512);
  const put = (text: string, at: number, length: number) => h.write(text, at, length, 'ascii');
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0');
  h.write(name, 0, 100, 'utf8');
  put(`${octal(mode, 8)}\0`, 100, 8);
  put(`${octal(0, 8)}\0`, 108, 8);
  put(`${octal(0, 8)}\0`, 116, 8);
  put(`${octal(size, 12)}\0`, 124, 12);
  put(`${octal(Math.floor(Date.now() / 1000), 12)}\0`, 136, 12);
  put('        ', 148, 8);
  put(type, 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}
