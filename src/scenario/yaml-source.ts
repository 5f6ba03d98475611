import type { Document, LineCounter } from 'yaml';
import { requireCjs } from '../util/require-cjs.js';

const {
  isMap,
  isScalar,
  isSeq,
  LineCounter: LineCounterClass,
  parseDocument,
  parse: parseYamlValue,
  visit,
} = requireCjs('yaml') as typeof import('yaml');

import { didYouMean } from '../util/closest-word.js';

/** Alias expansions allowed when a scenario becomes data; a real scenario uses a handful. */
export const MAX_ALIAS_EXPANSIONS = 1000;

export type PathSegment = string | number;

/** A scenario's YAML text kept with its positions, so every problem can name its line. */
export class YamlSource {
  private readonly overridden: string[] = [];

  private constructor(
    readonly file: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  static parse(file: string, text: string): { source?: YamlSource; errors: string[] } {
    const lines = new LineCounterClass();
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
    const errors = doc.errors.map((e) => {
      const pos = e.linePos?.[0];
      return `${pos ? `line ${pos.line}` : 'YAML'}: ${e.message.split('\n')[0]}`;
    });
    const lineAt = (offset: number) => lines.linePos(offset).line;
    visit(doc, {
      Alias(_key, node) {
        if (!node.resolve(doc))
          errors.push(
            `line ${lineAt(node.range?.[0] ?? 0)}: *${node.source} refers to no anchor; define &${node.source} before it, or write the value out`,
          );
      },
    });
    if (errors.length) return { errors };
    const source = new YamlSource(file, doc, lines);
    const expansion = source.aliasExpansionProblem();
    return expansion ? { errors: [expansion] } : { source, errors: [] };
  }

  /** A copy to set overrides in; this one stays as parsed (a sweep parses its scenario once). */
  copy(): YamlSource {
    return new YamlSource(this.file, this.doc.clone(), this.lines);
  }

  private aliasExpansionProblem(): string | undefined {
    try {
      this.doc.toJS({ maxAliasCount: MAX_ALIAS_EXPANSIONS });
      return undefined;
    } catch (err) {
      let first: number | undefined;
      visit(this.doc, {
        Alias(_key, node) {
          first ??= node.range?.[0];
          return visit.BREAK;
        },
      });
      const where = first === undefined ? 'YAML' : `line ${this.lines.linePos(first).line}`;
      return `${where}: its aliases (*name) expand too many times (${(err as Error).message}); a scenario allows ${MAX_ALIAS_EXPANSIONS}, write the repeated values out or use fewer nested aliases`;
    }
  }

  toJS(): unknown {
    return this.doc.toJS({ maxAliasCount: MAX_ALIAS_EXPANSIONS });
  }

  /** True when `path` lies under a field set by `--set`, or was made by one: it has no line in the file. */
  isOverridden(path: readonly PathSegment[]): boolean {
    const text = path.join('.');
    if (this.overridden.some((o) => text === o || text.startsWith(`${o}.`))) return true;
    // A field that exists only because `--set` created something under it.
    const createdBelow = this.overridden.some((o) => o.startsWith(`${text}.`));
    return createdBelow && !(this.doc.getIn(path, true) as { range?: unknown } | undefined)?.range;
  }

  /** Line of the node at `path`, or of its nearest existing ancestor. */
  lineOf(path: readonly PathSegment[], key?: string): number | undefined {
    if (this.isOverridden(key === undefined ? path : [...path, key])) return undefined;
    for (let n = path.length; n >= 0; n--) {
      const parent = this.doc.getIn(path.slice(0, n), true);
      if (key !== undefined && n === path.length && isMap(parent)) {
        const pair = parent.items.find((p) => (p.key as { value?: unknown })?.value === key);
        const range = (pair?.key as { range?: [number, number] } | undefined)?.range;
        if (range) return this.lines.linePos(range[0]).line;
      }
      const range = (parent as { range?: [number, number] } | undefined)?.range;
      if (range) return this.lines.linePos(range[0]).line;
    }
    return undefined;
  }

  /**
   * Applies `--set a.b.c=value`. The value is read as YAML (so `10ms`, `5`, `true`, `[1,2]` work).
   * In a list, an element may be named instead of indexed (`vehicles.car1.start.speed=5`), picked
   * by its `type` (`vehicles.car1.apps.beacon.rate=5Hz`: every beacon app of car1), or `*` for every
   * element (`vehicles.*.apps.beacon.rate=5Hz`: every car's beacon apps; cars without one are left).
   */
  set(assignment: string): string | undefined {
    const eq = assignment.indexOf('=');
    if (eq <= 0) return `--set ${assignment}: write it as path=value, e.g. network.delay=100ms`;
    const rawPath = assignment.slice(0, eq).trim();
    const paths = this.resolvePaths(rawPath.split(/[.[\]]+/).filter(Boolean));
    if (typeof paths === 'string') return `--set ${rawPath}: ${paths}`;
    const text = assignment.slice(eq + 1);
    if (!text.trim()) return `--set ${rawPath}=: no value after "="; give one, e.g. ${rawPath}=${exampleValue(rawPath)}`;
    let value: unknown;
    try {
      value = parseYamlValue(text, { maxAliasCount: MAX_ALIAS_EXPANSIONS });
    } catch {
      return `--set ${rawPath}: the value is not valid YAML; quote it if it holds ':' or '#'`;
    }
    if (this.doc.contents !== null && !isMap(this.doc.contents))
      return `--set ${rawPath}: the scenario file is not a mapping of fields, so nothing can be set in it`;
    for (const path of paths) {
      try {
        this.doc.setIn(path, this.doc.createNode(value));
      } catch (err) {
        return `--set ${rawPath}: cannot be set here (${(err as Error).message})`;
      }
      this.overridden.push(path.join('.'));
    }
    return undefined;
  }

  /** `*` under something that is not a list would silently write a field named "*", and set nothing. */
  private nothingToMatch(written: string, rest: string[], absent: boolean): string {
    const where = written || 'the top level';
    if (written === 'vehicles' && this.doc.has('platoon')) {
      const tail = rest.length ? `.${rest.join('.')}` : '';
      return `this scenario has no vehicles list: its cars come from platoon:, so "*" matches nothing; set platoon.leader${tail} or platoon.follower${tail} instead`;
    }
    return `${where} is not a list${absent ? ' (it is not in this scenario)' : ''}, so "*" matches nothing; name a field instead`;
  }

  /** Every path `segments` names; a message when it names none. Under `*`, elements it does not fit are skipped. */
  private resolvePaths(segments: string[], path: PathSegment[] = [], writtenSoFar: string[] = []): PathSegment[][] | string {
    if (!segments.length) return [path];
    const [segment, ...rest] = segments;
    const node = this.doc.getIn(path, true);
    const written = writtenSoFar.join('.');
    const upTo = [...writtenSoFar, segment];
    // every element the rest of the path fits; the first misfit's reason when none does
    const fromEach = (indexes: number[]): PathSegment[][] | string => {
      const found: PathSegment[][] = [];
      let firstProblem: string | undefined;
      for (const index of indexes) {
        const r = this.resolvePaths(rest, [...path, index], upTo);
        if (typeof r === 'string') firstProblem ??= r;
        else found.push(...r);
      }
      return found.length ? found : (firstProblem ?? `${written} is empty`);
    };
    if (isSeq(node)) {
      if (segment === '*') return fromEach(node.items.map((_, i) => i));
      if (/^\d+$/.test(segment)) {
        if (Number(segment) >= node.items.length) return `index ${segment} is past the end of ${written || 'the list'}`;
        return this.resolvePaths(rest, [...path, Number(segment)], upTo);
      }
      const field = (item: unknown, key: string) => (isMap(item) ? item.get(key) : undefined);
      const byName = node.items.findIndex((item) => field(item, 'name') === segment);
      if (byName >= 0) return this.resolvePaths(rest, [...path, byName], upTo);
      const byType = node.items.flatMap((item, i) => (field(item, 'type') === segment ? [i] : []));
      if (byType.length) return fromEach(byType);
      const listed = (key: string) => [
        ...new Set(node.items.map((item) => field(item, key)).filter((n): n is string => typeof n === 'string')),
      ];
      const names = listed('name');
      const types = listed('type');
      const hint = didYouMean(segment, [...names, ...types]);
      const known = [names.length ? `names: ${names.join(', ')}` : '', types.length ? `types: ${types.join(', ')}` : '']
        .filter(Boolean)
        .join('; ');
      return `no element named "${segment}" in ${written}${hint ? `; ${hint}` : ''}${known ? ` (${known})` : ''}`;
    }
    if (node !== undefined && node !== null && !isMap(node)) {
      const shown = isScalar(node) ? ` (${JSON.stringify(node.value)})` : '';
      return `${written} is a single value${shown}, it has no field "${segment}"; set ${written}=VALUE instead`;
    }
    if (segment === '*') return this.nothingToMatch(written, rest, node === undefined || node === null);
    return this.resolvePaths(rest, [...path, segment], upTo);
  }
}

const exampleValue = (path: string) =>
  /delay|jitter|duration|timestep|threshold|lateness/i.test(path) ? '100ms' : /rate/i.test(path) ? '10Mbps' : '1';
