import { readdir, readFile, stat } from 'node:fs/promises';
import { UserInputError } from '../errors.js';

/** Scenarios are hand-written YAML; inline waypoints of a long track stay well under this. */
export const MAX_SCENARIO_BYTES = 4 * 1024 * 1024;

/**
 * Reads a scenario file as UTF-8 text, refusing what cannot be one (a folder, a huge or binary
 * file, another encoding) with a message that says what to do instead. Never echoes the content.
 */
export async function readScenarioText(file: string, absolute: string): Promise<string> {
  const refuse = (reason: string, hint?: string) =>
    new UserInputError(`scenario file ${file} cannot be read`, [`${file}: ${reason}`], hint);
  const info = await stat(absolute).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') throw refuse('no such file (check the path)');
    if (err.code === 'EACCES') throw refuse('permission denied', 'make the file readable, or copy it somewhere you can read');
    throw refuse(`cannot be read (${err.code ?? err.message})`);
  });
  if (info.isDirectory()) {
    const yamls = (await readdir(absolute).catch(() => [])).filter((n) => /\.ya?ml$/i.test(n)).slice(0, 5);
    throw refuse(
      'is a folder, not a scenario file',
      yamls.length
        ? `give one of the YAML files in it, e.g. ${file.replace(/\/$/, '')}/${yamls[0]}`
        : 'give the path of a scenario .yaml file',
    );
  }
  if (!info.isFile()) throw refuse('is not a regular file', 'give the path of a scenario .yaml file');
  if (info.size > MAX_SCENARIO_BYTES) {
    throw refuse(
      `is ${(info.size / 1024 ** 2).toFixed(1)} MiB; a scenario is at most ${MAX_SCENARIO_BYTES / 1024 ** 2} MiB`,
      'put long waypoint lists in a CSV file and name it from the scenario',
    );
  }
  const bytes = await readFile(absolute).catch((err: NodeJS.ErrnoException) => {
    throw refuse(err.code === 'EACCES' ? 'permission denied' : `cannot be read (${err.code ?? err.message})`);
  });
  const problem = textProblem(bytes);
  if (problem) throw refuse(problem.reason, problem.hint);
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

function textProblem(bytes: Buffer): { reason: string; hint: string } | undefined {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  const asciiAsUtf16 =
    bytes.length >= 4 && ((bytes[0] !== 0 && bytes[1] === 0 && bytes[3] === 0) || (bytes[0] === 0 && bytes[1] !== 0 && bytes[2] === 0));
  if (utf16 || asciiAsUtf16) {
    return {
      reason: 'is UTF-16 encoded; scenarios are UTF-8 text',
      hint: 'save it as UTF-8 (e.g. `iconv -f UTF-16 -t UTF-8 in.yaml > out.yaml`)',
    };
  }
  const control = bytes.findIndex((b) => b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d);
  if (control >= 0)
    return {
      reason: `is not a text file (control byte 0x${bytes[control].toString(16).padStart(2, '0')} at offset ${control})`,
      hint: 'give a scenario .yaml file',
    };
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { reason: 'is not valid UTF-8 text', hint: 'save it as UTF-8 (e.g. `iconv -f LATIN1 -t UTF-8 in.yaml > out.yaml`)' };
  }
  return undefined;
}
