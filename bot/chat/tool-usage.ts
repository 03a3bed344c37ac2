// A tool as a person types it: `name key=… [optional=…]`, its first sentence, and each argument's shape, from
// the JSON Schema the model receives. The CLI's `help` and the chat's `/ops help` both show it.
import type { ModelToolSpec } from '../../agent/model/model-port.js';

interface JsonSchemaProperty {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
  default?: unknown;
  items?: JsonSchemaProperty;
}

export interface ToolArgumentUsage {
  name: string;
  /** `string`, `one of a, b`, `list of string, comma-separated`. */
  shape: string;
  required: boolean;
  default?: unknown;
  /** The argument's first sentence, when it has a description. */
  description?: string;
}

export interface ToolUsage {
  name: string;
  /** `paths=… [max_entries=…]`: required arguments first. */
  usage: string;
  summary: string;
  arguments: ToolArgumentUsage[];
}

export function toolUsage(spec: ModelToolSpec): ToolUsage {
  const properties = (spec.parameters.properties ?? {}) as Record<string, JsonSchemaProperty>;
  const required = new Set((spec.parameters.required ?? []) as string[]);
  // Every tool takes timeout_ms; help says so once rather than under each tool.
  const names = Object.keys(properties)
    .filter((name) => name !== 'timeout_ms')
    .sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  return {
    name: spec.name,
    usage: names.map((name) => (required.has(name) ? `${name}=…` : `[${name}=…]`)).join(' '),
    summary: firstSentence(spec.description),
    arguments: names.map((name) => {
      const property = properties[name]!;
      return {
        name,
        shape: valueShape(property),
        required: required.has(name),
        ...(property.default !== undefined ? { default: property.default } : {}),
        ...(property.description ? { description: firstSentence(property.description) } : {}),
      };
    }),
  };
}

function valueShape(property: JsonSchemaProperty): string {
  if (property.enum) return `one of ${property.enum.map((value) => String(value)).join(', ')}`;
  const type = Array.isArray(property.type) ? property.type.join(' or ') : (property.type ?? 'any');
  if (type === 'array')
    return `list of ${property.items ? valueShape(property.items) : 'values'}, comma-separated`;
  return type;
}

function firstSentence(text: string): string {
  // A sentence ends before a capital letter, so "e.g. a value" does not end one.
  const match = /^(.+?[.!?])(?=\s+[A-Z]|$)/s.exec(text.trim());
  return (match ? match[1]! : text.trim()).replace(/\s+/g, ' ');
}
