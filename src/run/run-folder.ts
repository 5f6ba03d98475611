import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserInputError } from '../errors.js';
import { RUN_ID_PATTERN } from '../host/network/names.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import { chooseFolder, type FolderSetting } from '../util/writable-folder.js';
import { writeFileNoFollow } from '../util/write-no-follow.js';
import { hostFacts, hostFactsNeed } from './host-facts.js';
import { buildManifest, MANIFEST_FILE, type ManifestInput, type RunManifest } from './manifest.js';
import { RUN_FILES } from './run-files.js';
import type { RunSummary, UnstartedSummary } from './summary.js';

export const RUNS_DIR: FolderSetting = { flag: '--runs-dir', env: 'CAVSIM_RUNS_DIR', fallback: 'runs' };

/** Where runs live: $CAVSIM_RUNS_DIR, or runs/ under the current directory. */
/**
 * A run id given on the command line names a folder and a journal under the runs folder: a path
 * (../x) must not reach outside it.
 */
export function checkRunId(flag: string, runId: string, hint?: string): void {
  if (!RUN_ID_PATTERN.test(runId))
    throw new UserInputError(
      `${flag}: "${runId}" is not a run id`,
      [`it must match ${RUN_ID_PATTERN} (letters, digits, '.', '_', '-')`],
      hint,
    );
}

export const defaultRunsDir = () => chooseFolder(RUNS_DIR, undefined).path;

/** Sortable and unique: 20261122-101530-a3f9. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/** Set aside when a run opens and given back as its summary is written. */
const RESERVE_BYTES = 1024 * 1024;
let reserveZeros: Buffer | undefined;

export class RunFolder {
  private constructor(
    readonly runId: string,
    readonly dir: string,
  ) {}

  static create(runsDir: string, runId = newRunId()): RunFolder {
    const dir = join(runsDir, runId);
    mkdirSync(dir, { recursive: true });
    return new RunFolder(runId, dir);
  }

  static open(runsDir: string, runId: string): RunFolder {
    const dir = join(runsDir, runId);
    if (!existsSync(dir)) throw new Error(`no run ${runId} in ${runsDir}`);
    return new RunFolder(runId, dir);
  }

  file(name: string): string {
    return join(this.dir, name);
  }

  writeScenario(scenario: ResolvedScenario): void {
    this.writeJson(RUN_FILES.scenario, scenario);
  }

  writeManifest(manifest: RunManifest): void {
    this.writeJson(MANIFEST_FILE, manifest);
  }

  /**
   * Sets space aside in the run folder: a run that fills its disk can still write why it ended.
   * Best effort: a disk already too full for it gets no reserve.
   */
  reserveSpace(): void {
    reserveZeros ??= Buffer.alloc(RESERVE_BYTES);
    try {
      writeFileSync(this.file(RUN_FILES.summaryReserve), reserveZeros, { flag: 'wx' });
    } catch {
      // A disk without room for the reserve: the file that did get made is emptied as the summary is written.
    }
  }

  /** Written over the reserve (its temporary name), which gives the reserved space back first. */
  writeSummary(summary: RunSummary | UnstartedSummary): void {
    this.writeJson(RUN_FILES.summary, summary);
  }

  readSummary(): RunSummary | UnstartedSummary | undefined {
    const f = this.file(RUN_FILES.summary);
    return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as RunSummary | UnstartedSummary) : undefined;
  }

  /** Written to a temporary name and renamed, so a reader never sees half a file. */
  private writeJson(name: string, value: unknown): void {
    const tmp = this.file(temporaryName(name));
    writeFileNoFollow(tmp, `${JSON.stringify(value, null, 2)}\n`);
    renameSync(tmp, this.file(name));
  }
}

/** Writes the run's manifest.json; the host facts are asked once per process. */
export async function recordManifest(folder: RunFolder, input: Omit<ManifestInput, 'runId' | 'facts'>): Promise<RunManifest> {
  const manifest = buildManifest({ ...input, runId: folder.runId, facts: await hostFacts(hostFactsNeed(input.runtime, input.scenario)) });
  folder.writeManifest(manifest);
  return manifest;
}

/** The run folders' names, oldest first; none when the folder does not exist (or is a file). */
export function listRunIds(runsDir: string): string[] {
  try {
    return readdirSync(runsDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new UserInputError(
      `${runsDir}: the runs folder cannot be read (${code ?? String(err)})`,
      [],
      'check its permissions, or set CAVSIM_RUNS_DIR to another folder',
    );
  }
}

/** Where a JSON file of the run folder is written before its rename (the summary's is also its reserve). */
export const temporaryName = (name: string) => `.${name}.tmp`;
