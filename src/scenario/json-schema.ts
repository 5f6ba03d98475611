import { z } from '../util/zod.js';
import { scenarioSchema } from './schema.js';

export const SCENARIO_SCHEMA_ID = 'https://cavsim.dev/schema/scenario.json';

export type JsonSchema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  examples?: unknown[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  [key: string]: unknown;
};

/**
 * The scenario file's JSON Schema: what a user writes (the input side: "10ms" as well as 0.01),
 * with each field's description, unit and default, for editors and for the field reference.
 */
export function scenarioJsonSchema(): JsonSchema {
  const generated = z.toJSONSchema(scenarioSchema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: SCENARIO_SCHEMA_ID,
    title: 'cavsim scenario',
    description:
      'A cavsim scenario file (YAML): map, duration, vehicles and their controllers and apps, the V2V network. Durations, rates and powers take units ("10ms", "100Mbps", "20dBm").',
    ...rest,
    // a traffic block brings its road (the map) and its cars
    anyOf: [{ required: ['map', 'vehicles'] }, { required: ['traffic'] }],
  };
}
