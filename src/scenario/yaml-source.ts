import { isMap, isSeq, LineCounter, parseDocument, parse as parseYamlValue, type Document } from 'yaml';

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
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
    const errors = doc.errors.map((e) => {
      const pos = e.linePos?.[0];
      return `${pos ? `line ${pos.line}` : 'YAML'}: ${e.message.split('\n')[0]}`;
    });
    return { source: errors.length ? undefined : new YamlSource(file, doc, lines), errors };
  }

  toJS(): unknown {
    return this.doc.toJS();
  }

  /** True when `path` lies under a field set by `--set`: it has no line in the file. */
  isOverridden(path: readonly PathSegment[]): boolean {
    const text = path.join('.');
    return this.overridden.some((o) => text === o || text.startsWith(o + '.'));
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
   * Applies `--set a.b.c=value`. The value is read as YAML (so `10ms`, `5`, `true`, `[1,2]` work);
   * a vehicle may be named instead of indexed: `vehicles.car1.start.speed=5`.
   */
  set(assignment: string): string | undefined {
    const eq = assignment.indexOf('=');
    if (eq <= 0) return `--set ${assignment}: write it as path=value, e.g. network.delay=100ms`;
    const rawPath = assignment.slice(0, eq).trim();
    const path = this.resolvePath(rawPath.split(/[.[\]]+/).filter(Boolean));
    if (typeof path === 'string') return `--set ${rawPath}: ${path}`;
    let value: unknown;
    try {
      value = parseYamlValue(assignment.slice(eq + 1));
    } catch {
      return `--set ${rawPath}: the value is not valid YAML`;
    }
    this.doc.setIn(path, this.doc.createNode(value));
    this.overridden.push(path.join('.'));
    return undefined;
  }

  private resolvePath(segments: string[]): PathSegment[] | string {
    const path: PathSegment[] = [];
    for (const segment of segments) {
      const node = this.doc.getIn(path, true);
      if (isSeq(node)) {
        if (/^\d+$/.test(segment)) {
          if (Number(segment) >= node.items.length) return `index ${segment} is past the end of ${path.join('.') || 'the list'}`;
          path.push(Number(segment));
          continue;
        }
        const index = node.items.findIndex((item) => isMap(item) && item.get('name') === segment);
        if (index < 0) return `no element named "${segment}" in ${path.join('.')}`;
        path.push(index);
        continue;
      }
      path.push(segment);
    }
    return path;
  }
}
