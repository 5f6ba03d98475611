import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserInputError } from '../errors.js';
import { readJsonFile } from '../run/read-run-folder.js';
import { newRunId } from '../run/run-folder.js';
import { chooseFolder, type FolderSetting } from '../util/writable-folder.js';
import type { SweepAxis, SweepPoint } from './grid.js';
import type { SweepResult } from './result-row.js';
import type { SweepValue } from './values.js';

export type Runtime = 'sim' | 'docker';

export type SweepMode =
  | {
      type: 'grid';
      points: SweepPoint[];
      /** One swept field the runs tell apart only in steps (a delay acts at whole control ticks): that step, in the axis's unit. */
      resolution?: number;
    }
  | {
      type: 'critical';
      path: string;
      lo: SweepValue;
      hi: SweepValue;
      tolerance: number;
      unit: string;
      coarse: number;
      /** The finest step the runs can tell apart, in `unit` (a delay acts at whole control ticks); probes sit on its multiples. */
      resolution?: number;
    };

/** grid.json: everything needed to run the sweep again or resume it. */
export interface SweepSpec {
  schema: 'cavsim.sweep/1';
  id: string;
  created: string;
  scenario: string;
  runtime: Runtime;
  /** `--set` assignments with a single value, applied to every run. */
  fixed: string[];
  axes: SweepAxis[];
  repeat: number;
  baseSeed: number;
  mode: SweepMode;
  /** Scenario fields this runtime ignores, as `cavsim validate --runtime` lists them. */
  warnings?: string[];
  /** `--criterion` values, as written; absent: collision (sweeps before criteria). */
  criteria?: string[];
}

export const SWEEPS_DIR: FolderSetting = { flag: '--sweeps-dir', env: 'CAVSIM_SWEEPS_DIR', fallback: 'sweeps' };

/** Where sweeps live: $CAVSIM_SWEEPS_DIR, or sweeps/ under the current directory. */
export const defaultSweepsDir = () => chooseFolder(SWEEPS_DIR, undefined).path;

export const newSweepId = newRunId;

const RESULTS = 'results.jsonl';

/**
 * One sweep on disk: grid.json (the spec), results.jsonl (one line appended per finished run, so an
 * interrupted sweep loses no finished run), runs/<point id>/ (the run folders), the tables and plots.
 */
export class SweepFolder {
  private constructor(
    readonly dir: string,
    readonly spec: SweepSpec,
  ) {}

  static create(sweepsDir: string, spec: Omit<SweepSpec, 'schema' | 'id' | 'created'>, id = newSweepId()): SweepFolder {
    const dir = join(sweepsDir, id);
    if (existsSync(join(dir, 'grid.json')))
      throw new UserInputError(`sweep ${id} already exists in ${sweepsDir}`, [], `resume it with --resume ${id}`);
    mkdirSync(join(dir, 'runs'), { recursive: true });
    const full: SweepSpec = { schema: 'cavsim.sweep/1', id, created: new Date().toISOString(), ...spec };
    writeAtomically(join(dir, 'grid.json'), `${JSON.stringify(full, null, 2)}\n`);
    return new SweepFolder(dir, full);
  }

  /** Opens `sweeps/<id>` or a folder path. */
  static open(sweepsDir: string, idOrDir: string): SweepFolder {
    const candidates = [join(sweepsDir, idOrDir), resolve(idOrDir)];
    const dir = candidates.find((d) => existsSync(join(d, 'grid.json')));
    if (!dir)
      throw new UserInputError(
        `no sweep ${idOrDir}`,
        candidates.map((d) => `${d}/grid.json: not found`),
      );
    const spec = readJsonFile(join(dir, 'grid.json'), new UserInputError(`${dir}/grid.json: not found`)) as SweepSpec | null;
    const problem = specProblem(spec);
    if (problem)
      throw new UserInputError(`${dir}/grid.json is not a cavsim sweep: ${problem}`, [], 'start the sweep again without --resume');
    return new SweepFolder(dir, spec!);
  }

  static isSweepDir(dir: string): boolean {
    return existsSync(join(dir, 'grid.json'));
  }

  get id(): string {
    return this.spec.id;
  }

  get runsDir(): string {
    return join(this.dir, 'runs');
  }

  file(name: string): string {
    return join(this.dir, name);
  }

  /** Appends one line and returns once it is written; a crash can only cut the line being written. */
  appendResult(result: SweepResult): void {
    appendFileSync(this.file(RESULTS), `${JSON.stringify(result)}\n`);
  }

  /**
   * Every recorded result, the latest per point key (a point run again on resume replaces its
   * earlier failure). A line cut short by a crash is skipped.
   */
  readResults(): SweepResult[] {
    const path = this.file(RESULTS);
    if (!existsSync(path)) return [];
    const byKey = new Map<string, SweepResult>();
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const r = JSON.parse(line) as SweepResult | null;
        if (typeof r?.key === 'string') byKey.set(r.key, r);
      } catch {}
    }
    return [...byKey.values()];
  }

  writeText(name: string, text: string): void {
    writeAtomically(this.file(name), text);
  }

  writeJson(name: string, value: unknown): void {
    writeAtomically(this.file(name), `${JSON.stringify(value, null, 2)}\n`);
  }
}

/** What makes a grid.json unusable, in a few words; undefined when it looks like one cavsim wrote. */
function specProblem(spec: Partial<SweepSpec> | null): string | undefined {
  if (spec?.schema !== 'cavsim.sweep/1') return `schema ${String(spec?.schema)}`;
  if (typeof spec.id !== 'string' || typeof spec.scenario !== 'string') return 'no id or scenario';
  if (spec.runtime !== 'sim' && spec.runtime !== 'docker') return `runtime ${String(spec.runtime)}`;
  if (!Number.isInteger(spec.repeat) || spec.repeat! < 1 || !Array.isArray(spec.fixed) || !Array.isArray(spec.axes))
    return 'no repeat, fixed or axes';
  if (spec.mode?.type === 'grid' ? !Array.isArray(spec.mode.points) : spec.mode?.type !== 'critical')
    return 'no grid points or critical search';
  return undefined;
}

function writeAtomically(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}
