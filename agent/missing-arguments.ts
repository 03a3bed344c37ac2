// When a call lacks required arguments, ask the person for exactly those fields, phrased from their descriptions.
import type { z } from 'zod';
import { fieldQuestion } from './field-question.js';
import type { ModelToolSpec } from './model/model-client.js';

interface FieldSchema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  items?: FieldSchema;
}

/** Top-level fields the input requires and the arguments lack (undefined counts as missing). */
export function findMissingFields(error: z.ZodError, args: Record<string, unknown>): string[] | undefined {
  const missing = new Set<string>();
  for (const issue of error.issues) {
    const field = issue.path[0];
    const isMissing =
      issue.path.length === 1 &&
      typeof field === 'string' &&
      (args[field] === undefined || args[field] === null);
    if (!isMissing) return undefined;
    missing.add(field);
  }
  return missing.size > 0 ? [...missing] : undefined;
}

function fieldSchema(spec: ModelToolSpec, field: string): FieldSchema {
  const properties = (spec.parameters.properties ?? {}) as Record<string, FieldSchema>;
  return Object.hasOwn(properties, field) ? (properties[field] ?? {}) : {};
}

/** One field as a question a person can answer: "Which service should I restart? (one of: api, worker)". */
function askField(spec: ModelToolSpec, field: string): string {
  const schema = fieldSchema(spec, field);
  const choices = schema.enum ?? schema.items?.enum;
  const options = choices && choices.length > 0 ? ` (one of: ${choices.map(String).join(', ')})` : '';
  return `${fieldQuestion(field, schema.description)}${options}`;
}

export function missingFieldsQuestion(spec: ModelToolSpec, fields: string[]): string {
  if (fields.length === 1) return askField(spec, fields[0]!);
  const lines = fields.map((field) => `• \`${field}\`: ${askField(spec, field)}`);
  return `To run ${spec.name} I need ${fields.length} more details. Reply with field=value for each:\n${lines.join('\n')}`;
}

/** The choices to offer as buttons when exactly one enumerated field is missing. */
export function missingFieldChoices(spec: ModelToolSpec, fields: string[]): string[] {
  if (fields.length !== 1) return [];
  const choices = fieldSchema(spec, fields[0]!).enum;
  return choices ? choices.map(String) : [];
}

/** Merges a person's answer into the arguments, typed by each field's JSON Schema. */
export function applyAnswer(
  spec: ModelToolSpec,
  fields: string[],
  args: Record<string, unknown>,
  answer: string,
): Record<string, unknown> {
  const merged = { ...args };
  if (fields.length === 1) {
    merged[fields[0]!] = coerce(fieldSchema(spec, fields[0]!), answer.trim());
    return merged;
  }
  for (const [key, value] of parseKeyValues(answer)) {
    if (fields.includes(key)) merged[key] = coerce(fieldSchema(spec, key), value);
  }
  return merged;
}

export function parseKeyValues(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  const pattern = /([A-Za-z_][\w-]*)\s*[=:]\s*("([^"]*)"|'([^']*)'|[^\s,;]+)/g;
  for (const match of text.matchAll(pattern)) {
    pairs.push([match[1]!, match[3] ?? match[4] ?? match[2]!]);
  }
  return pairs;
}

export function coerce(schema: FieldSchema, value: string): unknown {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('integer') || types.includes('number')) {
    const number = Number(value);
    return Number.isFinite(number) && value !== '' ? number : value;
  }
  if (types.includes('boolean')) {
    if (/^(true|yes|y|on|1)$/i.test(value)) return true;
    if (/^(false|no|n|off|0)$/i.test(value)) return false;
    return value;
  }
  if (types.includes('array')) {
    return value
      .split(/[,\s]+/)
      .filter(Boolean)
      .map((item) => coerce(schema.items ?? {}, item));
  }
  return value;
}
