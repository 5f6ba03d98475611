/**
 * Field checks for small JSON payloads on paths that start often and must start fast (a vehicle
 * process): zod is most of such a process's start-up, so the few payloads it reads are checked
 * by hand. Each check records "field: what is wrong" and the caller throws them together.
 */
export class PlainFields {
  readonly issues: string[] = [];

  constructor(private readonly fields: Record<string, unknown>) {}

  /** The payload itself, when it is a JSON object; undefined otherwise. */
  static of(raw: unknown): PlainFields | undefined {
    return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? new PlainFields(raw as Record<string, unknown>) : undefined;
  }

  /** A field as it came, unchecked. */
  raw(key: string): unknown {
    return this.fields[key];
  }

  string(key: string, rule: { min?: number; max?: number; pattern?: RegExp; patternText?: string } = {}): string {
    const value = this.fields[key];
    if (typeof value !== 'string') {
      this.fail(key, 'expected a string');
      return '';
    }
    if (rule.min !== undefined && value.length < rule.min) this.fail(key, `expected at least ${rule.min} characters`);
    if (rule.max !== undefined && value.length > rule.max) this.fail(key, `expected at most ${rule.max} characters`);
    if (rule.pattern && !rule.pattern.test(value)) this.fail(key, `expected ${rule.patternText ?? `to match ${rule.pattern}`}`);
    return value;
  }

  optionalString(key: string): string | undefined {
    return this.fields[key] === undefined ? undefined : this.string(key);
  }

  number(key: string, rule: { integer?: boolean; min?: number; max?: number } = {}): number {
    const value = this.fields[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.fail(key, 'expected a finite number');
      return 0;
    }
    if (rule.integer && !Number.isInteger(value)) this.fail(key, 'expected an integer');
    if (rule.min !== undefined && value < rule.min) this.fail(key, `expected at least ${rule.min}`);
    if (rule.max !== undefined && value > rule.max) this.fail(key, `expected at most ${rule.max}`);
    return value;
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T {
    const value = this.fields[key];
    if (!values.includes(value as T)) this.fail(key, `expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}`);
    return value as T;
  }

  stringList(key: string, rule: { min?: number } = {}): string[] {
    const value = this.fields[key];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      this.fail(key, 'expected a list of strings');
      return [];
    }
    if (rule.min !== undefined && value.length < rule.min) this.fail(key, `expected at least ${rule.min} item(s)`);
    return value as string[];
  }

  record(key: string): Record<string, unknown> {
    const value = this.fields[key];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(key, 'expected an object');
      return {};
    }
    return value as Record<string, unknown>;
  }

  /** Fails every key of the payload not in `known`. */
  onlyKeys(known: readonly string[]): void {
    for (const key of Object.keys(this.fields)) if (!known.includes(key)) this.fail(key, 'not a known field');
  }

  private fail(key: string, message: string): void {
    this.issues.push(`${key}: ${message}`);
  }
}
