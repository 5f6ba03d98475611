import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REFERENCE_END, REFERENCE_START, renderFieldReference, withFieldReference } from '../../../src/scenario/field-reference.js';
import { type JsonSchema, scenarioJsonSchema } from '../../../src/scenario/json-schema.js';

const DOC = fileURLToPath(new URL('../../../docs/scenario.md', import.meta.url));

/** Every property of every object, variants of unions included, with its path. */
function properties(s: JsonSchema, path = ''): [string, JsonSchema][] {
  const own = Object.entries(s.properties ?? {}).flatMap(([k, v]) => [
    [`${path}.${k}`, v] as [string, JsonSchema],
    ...properties(v, `${path}.${k}`),
  ]);
  const nested = [
    ...(s.items ? properties(s.items, `${path}[]`) : []),
    ...[...(s.oneOf ?? []), ...(s.anyOf ?? [])].flatMap((v) => properties(v, path)),
  ];
  return [...own, ...nested];
}

describe('the scenario JSON Schema', () => {
  const schema = scenarioJsonSchema();

  it('is a draft 2020-12 schema with an id and a title, for what a user writes', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema).toMatchObject({
      $id: expect.stringMatching(/scenario/),
      title: 'cavsim scenario',
      type: 'object',
      required: ['name', 'duration'],
      anyOf: [{ required: ['map', 'vehicles'] }, { required: ['traffic'] }],
    });
    expect(schema.additionalProperties).toBe(false);
  });

  it('describes every field except the tag of a tagged union', () => {
    const undescribed = properties(schema).filter(([path, s]) => !s.description && !path.endsWith('.type') && !(s.oneOf ?? s.anyOf));
    expect(undescribed.map(([p]) => p)).toEqual([]);
  });

  it('takes quantities with units, with an example, and keeps defaults and choices', () => {
    const network = schema.properties!.network.properties!;
    expect(network.delay).toMatchObject({ type: ['string', 'number'], examples: ['10ms'] });
    expect(network.channel).toMatchObject({ enum: ['csma', 'latency', 'wifi-80211p', 'lte-v2x', 'nr-v2x'], default: 'csma' });
    expect(schema.properties!.seed).toMatchObject({ type: 'integer', default: 1 });
    const car = schema.properties!.vehicles.items!;
    expect(car.required).toEqual(expect.arrayContaining(['name', 'start']));
    expect(car.properties!.controller.oneOf!.map((v) => v.properties!.type.const)).toContain('pure-pursuit');
  });
});

describe('the field reference in docs/scenario.md', () => {
  it('is the one generated from the schema (run `npm run docs:scenario` after changing it)', () => {
    const doc = readFileSync(DOC, 'utf8');
    expect(withFieldReference(doc, renderFieldReference(scenarioJsonSchema()))).toBe(doc);
  });

  it('has a row per field, with controllers and apps per type', () => {
    const table = renderFieldReference(scenarioJsonSchema());
    expect(table).toContain('| `network.delay` | quantity, e.g. `10ms` |');
    expect(table).toMatch(/\| `vehicles\[\]\.controller \(type: pure-pursuit\)\.lookahead` \| number \(> 0, ≤ 50\) \| `1\.5` \|/);
    expect(table).toMatch(/\| `name` \| string \| required \|/);
  });

  it('refuses a document without the markers', () => {
    expect(() => withFieldReference('# no markers', 'x')).toThrow(REFERENCE_START);
    expect(REFERENCE_END).toMatch(/end/);
  });
});
