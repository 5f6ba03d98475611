import { UserInputError } from '../errors.js';
import { readRegularFileSync } from '../util/read-input-file.js';

/** The largest file Node reads into one string (V8's limit, ~512 MiB). */
const MAX_RUN_FILE_BYTES = 2 ** 29 - 24;

/**
 * The text of a file in a run folder, or undefined when there is none. A link (a vehicle may have
 * planted one), a device, or a file too large is refused, naming the file: it is not read.
 */
export function readRunFile(path: string): string | undefined {
  const r = readRegularFileSync(path, MAX_RUN_FILE_BYTES);
  if (r.ok) return r.text;
  if (r.problem === 'not found') return undefined;
  throw new UserInputError(
    `${path} ${r.problem}`,
    [],
    'a run folder holds only the files cavsim wrote: restore it, or run the scenario again',
  );
}
