import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserInputError } from '../errors.js';
import { readJsonFile } from './read-run-folder.js';
import { RUN_FILES } from './run-files.js';
import { listRunIds } from './run-folder.js';

export interface LastScenario {
  /** The scenario file of the newest usable run, if any. */
  found?: { file: string; runId: string };
  /** Newer runs passed over, each with why (a damaged record, a scenario file since removed). */
  skipped: string[];
}

/**
 * The scenario file of the newest run folder, as recorded in its scenario.resolved.json. A newer
 * run whose record is damaged or names a file that is gone is passed over and listed, so the
 * caller can say which run it fell back to.
 */
export function findLastScenario(runsDir: string): LastScenario {
  const skipped: string[] = [];
  for (const runId of listRunIds(runsDir).reverse()) {
    const path = join(runsDir, runId, RUN_FILES.scenario);
    if (!existsSync(path)) continue;
    let record: unknown;
    try {
      record = readJsonFile(path, new UserInputError(`${path}: not found`));
    } catch (err) {
      if (!(err instanceof UserInputError)) throw err;
      skipped.push(err.message);
      continue;
    }
    const source = (record as { sourceFile?: unknown } | null)?.sourceFile;
    if (typeof source !== 'string' || !source) skipped.push(`${path} names no scenario file`);
    else if (!existsSync(source)) skipped.push(`${path} names ${source}, which no longer exists`);
    else return { found: { file: source, runId }, skipped };
  }
  return { skipped };
}
