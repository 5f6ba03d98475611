import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RUN_FILES } from '../../../src/run/run-files.js';
import { nodesInCycles } from '../../support/cycles.js';
import { readSources, type SourceFile, stripComments } from '../../support/source-imports.js';

/**
 * The house plan (docs/architecture.md): `src/` is a stack of floors and imports only run
 * downward. Each rule below is one row of the table in that document; a wrong import fails here
 * with the rule's number, the file, what it imports, and why the rule exists.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The floors, top to bottom. A folder may import its own floor and the floors below it. host/
 * stands just above util/: everything that runs may take a port, and the ports import nothing
 * above them (rule 4); the models and the scenario never take one (rules 1 to 3).
 */
const FLOORS = [
  'cli',
  'ui',
  'sweep',
  'api',
  'runtime',
  'run',
  'channel',
  'measurement',
  'world',
  'scenario',
  'core',
  'host',
  'util',
] as const;
/** Single files at the bottom, beside util/. */
const BOTTOM_FILES = ['errors.ts', 'ports.ts'];
const MAX_TOP_ENTRIES = 15;

/** `src/run/finish-run.ts` -> `run/finish-run.ts`; anything outside src/ keeps its repo path. */
const inSrc = (p: string) => (p.startsWith('src/') ? p.slice(4) : undefined);
const under = (p: string | undefined, folder: string) =>
  p !== undefined && (p === folder || p.startsWith(folder.endsWith('.ts') ? folder : `${folder}/`));
const underAny = (p: string | undefined, folders: string[]) => folders.some((f) => under(p, f));
const floorOf = (p: string) => {
  const top = p.split('/')[0];
  return BOTTOM_FILES.includes(top) ? FLOORS.indexOf('util') : FLOORS.indexOf(top as (typeof FLOORS)[number]);
};

interface Rule {
  id: number;
  /** The rule as a sentence (the table's row). */
  rule: string;
  /** Why it exists. */
  why: string;
  /** True when `from` (a src-relative path) may not import `to` (src-relative, or undefined outside src/). */
  forbids: (from: string, to: string | undefined, toRepoPath: string) => boolean;
}

const BASICS = ['util', ...BOTTOM_FILES];
const CHANNEL_CONTRACT = 'channel/frames.ts';

const RULES: Rule[] = [
  {
    id: 0,
    rule: 'a folder imports only its own floor and the floors below it (cli > ui > sweep > api > runtime > run > channel > measurement > world > scenario > core > host > util); the channel contract is governed by rule 3',
    why: 'arrows only downward: a newcomer reads the architecture off `ls src/`, and no change ripples upward',
    forbids: (from, to) =>
      to !== undefined && to !== CHANNEL_CONTRACT && floorOf(from) >= 0 && floorOf(to) >= 0 && floorOf(to) < floorOf(from),
  },
  {
    id: 1,
    rule: 'core/ imports only core/, util/, errors.ts',
    why: 'models know no scenario and no host: physics, maps, sensing and controllers are pure and testable alone',
    forbids: (from, to) => under(from, 'core') && to !== undefined && !underAny(to, ['core', ...BASICS]),
  },
  {
    id: 2,
    rule: 'scenario/ imports only scenario/, core/, util/, errors.ts',
    why: 'validation touches nothing on the host: bad input is rejected before anything exists',
    forbids: (from, to) => under(from, 'scenario') && to !== undefined && !underAny(to, ['scenario', 'core', ...BASICS]),
  },
  {
    id: 3,
    rule: 'world/ and measurement/ import no host/, runtime/, run/; from channel/ only the contract (channel/frames.ts)',
    why: 'the world step and its measurements are the same code in both runtimes and in tests',
    forbids: (from, to) =>
      underAny(from, ['world', 'measurement']) &&
      (underAny(to, ['host', 'runtime', 'run']) || (under(to, 'channel') && to !== CHANNEL_CONTRACT)),
  },
  {
    id: 4,
    rule: 'host/ imports only host/, util/, errors.ts',
    why: 'ports know no run folder, runtime or CLI: each side effect sits behind one narrow interface',
    forbids: (from, to) => under(from, 'host') && to !== undefined && !underAny(to, ['host', ...BASICS]),
  },
  {
    id: 5,
    rule: 'channel/ imports no runtime/, run/, api/; channel/builtin/, channel/radio/ and the contract import no host/',
    why: 'a channel serves every runtime; the in-process models (builtin/, and the radio models of radio/) and the frame contract run in virtual time with no process at all',
    forbids: (from, to) =>
      (under(from, 'channel') && underAny(to, ['runtime', 'run', 'api'])) ||
      ((underAny(from, ['channel/builtin', 'channel/radio']) || from === CHANNEL_CONTRACT) && under(to, 'host')),
  },
  {
    id: 6,
    rule: 'runtime/sim/ and runtime/emulated/ never import each other',
    why: 'one runtime changes without breaking the other; what both need lives lower (world/, run/, runtime/rosbridge/)',
    forbids: (from, to) =>
      (under(from, 'runtime/sim') && under(to, 'runtime/emulated')) || (under(from, 'runtime/emulated') && under(to, 'runtime/sim')),
  },
  {
    id: 7,
    rule: 'run/ imports no runtime/, api/, ui/, cli/',
    why: 'the run folder and its one lifecycle are shared by both runtimes and read back by replay, report and view',
    forbids: (from, to) => under(from, 'run') && underAny(to, ['runtime', 'api', 'ui', 'cli']),
  },
  {
    id: 8,
    rule: 'cli/ imports nothing from host/',
    why: 'the CLI builds no ports: wiring real Docker, commands and networking lives in api/, so every command also runs headless',
    forbids: (from, to) => under(from, 'cli') && under(to, 'host'),
  },
  {
    id: 9,
    rule: 'nothing in src/ imports bench/ or test/',
    why: 'benchmarks and test beds do not ship in dist/ or the images',
    forbids: (_from, to, repoPath) => to === undefined && (repoPath.startsWith('bench/') || repoPath.startsWith('test/')),
  },
];

const sources: SourceFile[] = readSources(ROOT, 'src');
const RUN_FILES_SOURCE = 'src/run/run-files.ts';
/**
 * A run-folder file name used to reach a file: the whole string literal, or a path segment after
 * '/'. Prose in help texts and messages may mention a file.
 */
const reaches = (name: string) => {
  const n = name.replace(/\./g, '\\.');
  return new RegExp(`(['"\`])${n}\\1|/${n}(?![\\w-])`);
};

/** Files of other folders that share a run file's name, each with its reason. */
const OTHER_FOLDERS_FILES: Record<string, string[]> = {
  'src/sweep/run-sweep.ts': ['timing.csv'], // a sweep folder's own timing.csv (each point's timings), not a run's
};

function violations(rule: Rule, files: SourceFile[]): string[] {
  return files.flatMap((f) => {
    const from = inSrc(f.path)!;
    return f.localImports.filter((target) => rule.forbids(from, inSrc(target), target)).map((target) => `${f.path} imports ${target}`);
  });
}

describe('the house plan', () => {
  it(`src/ has at most ${MAX_TOP_ENTRIES} entries, each a floor of the plan`, () => {
    const entries = readdirSync(`${ROOT}src`);
    expect(entries.length).toBeLessThanOrEqual(MAX_TOP_ENTRIES);
    expect(entries.filter((e) => !(FLOORS as readonly string[]).includes(e) && !BOTTOM_FILES.includes(e))).toEqual([]);
  });

  it('nothing under src/ is named bench or testbed', () => {
    expect(sources.map((f) => f.path).filter((p) => /(^|\/)(bench|testbed)(\/|\.|-)/.test(p.slice(4)))).toEqual([]);
  });

  for (const rule of RULES) {
    it(`rule ${rule.id}: ${rule.rule}`, () => {
      const found = violations(rule, sources);
      expect(found, `rule ${rule.id} (${rule.rule}) is broken, and it exists because ${rule.why}`).toEqual([]);
    });
  }

  it(`rule 10: run-folder file names are spelled in ${RUN_FILES_SOURCE} and nowhere else in src/`, () => {
    const spelled = sources
      .filter((f) => f.path !== RUN_FILES_SOURCE)
      .flatMap((f) => {
        const code = stripComments(readFileSync(`${ROOT}${f.path}`, 'utf8'));
        return Object.values(RUN_FILES)
          .filter((name) => reaches(name).test(code) && !OTHER_FOLDERS_FILES[f.path]?.includes(name))
          .map((name) => `${f.path} spells ${name}`);
      });
    expect(spelled, `rule 10 is broken: use RUN_FILES from ${RUN_FILES_SOURCE}, so a renamed file is renamed everywhere at once`).toEqual(
      [],
    );
  });

  it('no import cycle between folders', () => {
    const folderOf = (p: string) => p.slice(0, p.lastIndexOf('/'));
    const edges = new Map<string, Set<string>>();
    for (const f of sources) {
      for (const t of f.localImports) {
        if (!t.startsWith('src/') || folderOf(t) === folderOf(f.path)) continue;
        if (!edges.has(folderOf(f.path))) edges.set(folderOf(f.path), new Set());
        edges.get(folderOf(f.path))!.add(folderOf(t));
      }
    }
    expect(nodesInCycles(edges), 'these folders import each other in a cycle: move the file that closes it').toEqual([]);
  });
});

describe('the rules themselves', () => {
  const file = (path: string, ...targets: string[]): SourceFile => ({ path, imports: [], localImports: targets });
  const broken = (id: number, f: SourceFile) => violations(RULES.find((r) => r.id === id)!, [f]).length > 0;

  it('catch the imports they describe', () => {
    expect(broken(0, file('src/world/world.ts', 'src/api/run-simulated.ts'))).toBe(true);
    expect(broken(1, file('src/core/physics/x.ts', 'src/scenario/resolved.ts'))).toBe(true);
    expect(broken(2, file('src/scenario/x.ts', 'src/host/exec/command-runner.ts'))).toBe(true);
    expect(broken(3, file('src/measurement/x.ts', 'src/channel/ns3/compile.ts'))).toBe(true);
    expect(broken(4, file('src/host/docker/x.ts', 'src/run/run-folder.ts'))).toBe(true);
    expect(broken(5, file('src/channel/builtin/x.ts', 'src/host/exec/command-runner.ts'))).toBe(true);
    expect(broken(5, file('src/channel/radio/x.ts', 'src/host/exec/command-runner.ts'))).toBe(true);
    expect(broken(6, file('src/runtime/sim/x.ts', 'src/runtime/emulated/plan-emulated.ts'))).toBe(true);
    expect(broken(7, file('src/run/x.ts', 'src/ui/terminal/run/line-reporter.ts'))).toBe(true);
    expect(broken(8, file('src/cli/x.ts', 'src/host/docker/dockerode-port.ts'))).toBe(true);
    expect(broken(9, file('src/api/x.ts', 'bench/testbed/testbed.ts'))).toBe(true);
  });

  it('allow the imports the plan wants', () => {
    expect(broken(0, file('src/api/x.ts', 'src/runtime/sim/run-simulated.ts', 'src/util/random.ts', 'src/errors.ts'))).toBe(false);
    expect(broken(3, file('src/measurement/x.ts', 'src/channel/frames.ts', 'src/world/world.ts'))).toBe(false);
    expect(broken(5, file('src/channel/ns3/x.ts', 'src/host/exec/command-runner.ts'))).toBe(false);
  });

  it('see a run file reached by name, not mentioned in prose', () => {
    expect(reaches('summary.json').test("join(dir, 'summary.json')")).toBe(true);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text a rule reads, not a template
    expect(reaches('summary.json').test('`${dir}/summary.json`')).toBe(true);
    expect(reaches('summary.json').test("'print summary.json, with the run folder'")).toBe(false);
    expect(reaches('run.mcap').test("'run.mcap.partial'")).toBe(false);
  });

  it('find a cycle', () => {
    const edges = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(nodesInCycles(edges)).toEqual(['a', 'b', 'c']);
  });
});

// The source is read once per file; keep the test honest about what it saw.
it('reads the sources it checks', () => {
  expect(sources.length).toBeGreaterThan(200);
  expect(readFileSync(`${ROOT}src/errors.ts`, 'utf8').length).toBeGreaterThan(0);
});
