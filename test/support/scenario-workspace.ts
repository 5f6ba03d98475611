import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { UserInputError } from '../../src/errors.js';
import { type LoadScenarioOptions, loadScenario } from '../../src/scenario/load-scenario.js';

const MAPS = fileURLToPath(new URL('../../maps', import.meta.url));

/**
 * A temporary folder with the shipped maps in `maps/`, for scenario files a test writes; it is
 * removed after the test file. Call at the top level of a test file.
 */
export function scenarioWorkspace(name: string) {
  const dir = mkdtempSync(join(tmpdir(), `cavsim-${name}-`));
  beforeAll(() => cpSync(MAPS, join(dir, 'maps'), { recursive: true }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes a scenario under a fresh name (or `file`) and returns its path. */
  const write = (content: string | Buffer, file = `s-${Math.random().toString(36).slice(2)}.yaml`) => {
    const path = join(dir, file);
    writeFileSync(path, content);
    return path;
  };

  /** The problems validation lists for `yaml`; [] when it is valid. Other errors propagate. */
  const problems = async (yaml: string, options: LoadScenarioOptions = {}): Promise<string[]> => {
    try {
      await loadScenario(write(yaml), options);
      return [];
    } catch (err) {
      if (!(err instanceof UserInputError)) throw err;
      return err.details;
    }
  };

  return { dir, write, problems };
}
