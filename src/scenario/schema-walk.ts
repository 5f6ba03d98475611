import type { z } from '../util/zod.js';
import type { PathSegment } from './yaml-source.js';

type AnySchema = z.core.$ZodType;
interface Def {
  type: string;
  shape?: Record<string, AnySchema>;
  element?: AnySchema;
  innerType?: AnySchema;
  in?: AnySchema;
  options?: AnySchema[];
  discriminator?: string;
  values?: unknown[];
}
const defOf = (s: AnySchema) => s._zod.def as unknown as Def;

/** Strips wrappers (default, optional, transform pipe) down to the schema that checks the value. */
function unwrap(schema: AnySchema): AnySchema {
  let s = schema;
  for (let i = 0; i < 10; i++) {
    const def = defOf(s);
    if (def.innerType && ['default', 'optional', 'nullable', 'prefault', 'readonly', 'catch'].includes(def.type)) s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else return s;
  }
  return s;
}

/** The schema that checks the value at `path`, choosing a discriminated union's member by the data. */
export function schemaAt(root: AnySchema, path: readonly PathSegment[], data: unknown): AnySchema | undefined {
  let schema: AnySchema | undefined = root;
  let value = data;
  for (const segment of path) {
    schema = schema && pickMember(unwrap(schema), value);
    if (!schema) return undefined;
    const def = defOf(schema);
    if (def.type === 'object' && typeof segment === 'string') schema = def.shape?.[segment];
    else if (def.type === 'array' && typeof segment === 'number') schema = def.element;
    else return undefined;
    value = (value as Record<PathSegment, unknown> | undefined)?.[segment];
  }
  return schema && pickMember(unwrap(schema), value);
}

function pickMember(schema: AnySchema, value: unknown): AnySchema | undefined {
  const def = defOf(schema);
  if (def.type !== 'union' || !def.discriminator) return schema;
  const wanted = (value as Record<string, unknown> | undefined)?.[def.discriminator];
  const member = def.options?.find((o) => objectKeys(o).includes(def.discriminator!) && literalOf(o, def.discriminator!) === wanted);
  return member && unwrap(member);
}

const literalOf = (object: AnySchema, key: string) => defOf(unwrap(defOf(object).shape![key])).values?.[0];

/** Field names an object schema accepts. */
export function objectKeys(schema: AnySchema | undefined): string[] {
  if (!schema) return [];
  const def = defOf(unwrap(schema));
  return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
}

/** The description given with `.describe()`, looked up through wrappers. */
export function descriptionOf(schema: AnySchema | undefined): string | undefined {
  let s = schema;
  for (let i = 0; s && i < 10; i++) {
    const text = (s as { description?: string }).description;
    if (text) return text;
    const def = defOf(s);
    s = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
  }
  return undefined;
}
