import { didYouMean } from '../util/closest-word.js';
import { z } from '../util/zod.js';
import type { ScenarioProblem } from './scenario-problem.js';
import { descriptionOf, objectKeys, schemaAt } from './schema-walk.js';
import type { PathSegment } from './yaml-source.js';

type Issue = z.core.$ZodIssue;

/**
 * Turns zod's issues into messages a researcher can act on: what was found, what is wanted and,
 * for a likely typo, the field or choice that was probably meant.
 */
export function describeIssues(issues: readonly Issue[], data: unknown, root: z.core.$ZodType): ScenarioProblem[] {
  return issues.flatMap((issue) => describeIssue(issue, [], data, root));
}

function describeIssue(issue: Issue, prefix: PathSegment[], data: unknown, root: z.core.$ZodType): ScenarioProblem[] {
  const path = [...prefix, ...issue.path.filter((p): p is PathSegment => typeof p !== 'symbol')];
  const value = valueAt(data, path);
  const schema = () => schemaAt(root, path, data);
  const problem = (message: string, at = path): ScenarioProblem[] => [{ path: at, message }];
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = objectKeys(schemaAt(root, path, data));
      return issue.keys.map((key) => ({
        path: [...path, key],
        message: `unknown field "${key}"; ${didYouMean(key, known) ?? `remove it or check the spelling${known.length ? ` (fields here: ${known.join(', ')})` : ''}`}`,
      }));
    }
    case 'invalid_union': {
      if ('discriminator' in issue && issue.discriminator) {
        const options = ((issue as { options?: unknown[] }).options ?? []).map(String);
        const at = path.at(-1) === issue.discriminator ? path : [...path, issue.discriminator];
        const given = valueAt(data, at);
        if (given === undefined) return problem(`is required; use one of ${options.join(', ')}`, at);
        const hint = typeof given === 'string' ? didYouMean(given, options) : undefined;
        return problem(
          `${show(given)} is not a known ${issue.discriminator}; ${hint ? `${hint} ` : ''}use one of ${options.join(', ')}`,
          at,
        );
      }
      const matched = issue.errors.filter((branch) => !branch.some((i) => i.code === 'invalid_type' && i.path.length === 0));
      if (matched.length) return matched[0].flatMap((i) => describeIssue(i, path, data, root));
      const expected = [
        ...new Set(
          issue.errors
            .flat()
            .map((i) => (i.code === 'invalid_type' ? i.expected : undefined))
            .filter(Boolean),
        ),
      ] as string[];
      return problem(wrongType(value, expected, schema()));
    }
    case 'invalid_type':
      return problem(wrongType(value, [issue.expected], schema()));
    case 'invalid_value': {
      const options = issue.values.map(String);
      if (value === undefined) return problem(`is required; use one of ${options.join(', ')}`);
      const hint = typeof value === 'string' ? didYouMean(value, options) : undefined;
      return problem(`${show(value)} is not allowed; ${hint ? `${hint} ` : ''}use one of ${options.join(', ')}`);
    }
    case 'too_small':
    case 'too_big':
      return problem(outOfRange(issue, value));
    case 'invalid_format':
      return problem(`${show(value)} is not allowed; ${issue.message}`);
    default:
      return problem(issue.message.replace(/^Invalid input: /, ''));
  }
}

function wrongType(value: unknown, expected: string[], schema: z.core.$ZodType | undefined): string {
  const example = exampleOf(schema);
  const description = descriptionOf(schema);
  const wanted = example
    ? `a ${kindOf(example)} such as "${example}"`
    : expected.includes('string') && expected.includes('array')
      ? 'a file name or a list'
      : expected.map(article).join(' or ');
  if (value === undefined) return `is required: give ${wanted}${description ? ` (${description})` : ''}`;
  if (expected.includes('int') && typeof value === 'number' && Number.isFinite(value))
    return `${value} is not a whole number; use an integer such as ${Math.round(value)}`;
  const quoteHint =
    expected.includes('string') && !example && typeof value !== 'object' ? `; quote it ("${String(value)}") if you meant text` : '';
  return `expected ${wanted}, got ${show(value)}${quoteHint}`;
}

const kindOf = (example: string) =>
  /Hz$/.test(example) ? 'frequency' : /bps$/.test(example) ? 'data rate' : /ms$/.test(example) ? 'duration' : 'size';

function outOfRange(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>, value: unknown): string {
  if (!/^Too (small|big)/.test(issue.message)) return issue.message;
  const small = issue.code === 'too_small';
  const limit = Number(small ? (issue as { minimum: number | bigint }).minimum : (issue as { maximum: number | bigint }).maximum);
  const inclusive = issue.inclusive !== false;
  const bound = small ? (inclusive ? `${limit} or more` : `more than ${limit}`) : inclusive ? `at most ${limit}` : `less than ${limit}`;
  if (issue.origin === 'array') return `has ${(value as unknown[]).length} entries; give ${bound}`;
  if (issue.origin === 'string')
    return small && limit === 1 ? 'is empty; give a value' : `is ${String(value).length} characters long; use ${bound}`;
  return `${show(value)} is too ${small ? 'small' : 'large'}; use ${bound}`;
}

const article = (type: string) =>
  ({ string: 'text', number: 'a number', int: 'a whole number', boolean: 'true or false', array: 'a list', object: 'a mapping of fields' })[
    type
  ] ?? type;

/** A value as the user wrote it in YAML, for messages. */
export function show(value: unknown): string {
  if (value === null) return 'an empty value';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return '.nan (not a number)';
    if (!Number.isFinite(value)) return `${value > 0 ? '' : '-'}.inf (infinity, or a number too large)`;
    return `the number ${value}`;
  }
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') return 'a mapping of fields';
  return String(value);
}

function exampleOf(schema: z.core.$ZodType | undefined): string | undefined {
  let s = schema;
  for (let i = 0; s && i < 10; i++) {
    const examples = z.globalRegistry.get(s)?.examples;
    if (Array.isArray(examples) && typeof examples[0] === 'string') return examples[0];
    const def = s._zod.def as unknown as { innerType?: z.core.$ZodType; in?: z.core.$ZodType; type: string };
    s = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
  }
  return undefined;
}

export function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let value = data;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PathSegment, unknown>)[segment];
  }
  return value;
}
