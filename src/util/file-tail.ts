import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { LineAssembler } from './csv-lines.js';

/** Reading a file from a byte offset: the view's only way of touching a run's CSVs. */
export interface TailReader {
  /** Current size in bytes, or undefined when the file does not exist (yet). */
  size(path: string): Promise<number | undefined>;
  read(path: string, offset: number, length: number): Promise<Buffer>;
}

/** Reads regular files only, never through a link: what is not a file cavsim wrote reads as absent. */
export const diskTailReader: TailReader = {
  async size(path) {
    try {
      const info = await lstat(path);
      return info.isFile() ? info.size : undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  },
  async read(path, offset, length) {
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  },
};

/**
 * Follows a CSV that a run appends to: each call returns the complete lines written since the
 * previous one. A file that does not exist yet reads as empty.
 */
export class FileTail {
  private offset = 0;
  private readonly decoder = new StringDecoder('utf8');
  private readonly lines = new LineAssembler();

  constructor(
    readonly path: string,
    private readonly reader: TailReader = diskTailReader,
  ) {}

  async readNewLines(): Promise<string[]> {
    const size = await this.reader.size(this.path);
    if (size === undefined || size <= this.offset) return [];
    const bytes = await this.reader.read(this.path, this.offset, size - this.offset);
    this.offset += bytes.length;
    return this.lines.push(this.decoder.write(bytes));
  }
}
