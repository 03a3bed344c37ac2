// `help` in the terminal: each tool a person may use, with its arguments as `key=value` and what they mean.
import type { ModelToolSpec } from '../../agent/model/model-port.js';
import { bold, cyan, dim } from './terminal-colors.js';

interface JsonSchemaProperty {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
  default?: unknown;
  items?: JsonSchemaProperty;
}

/** One tool: its name and first sentence, then one line per argument (required first). */
export function formatToolHelp(spec: ModelToolSpec, note = ''): string {
  const properties = (spec.parameters.properties ?? {}) as Record<string, JsonSchemaProperty>;
  const required = new Set((spec.parameters.required ?? []) as string[]);
  // Every tool takes timeout_ms; the help says so once rather than under each tool.
  const names = Object.keys(properties)
    .filter((name) => name !== 'timeout_ms')
    .sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  const usage = names.map((name) => (required.has(name) ? `${name}=…` : `[${name}=…]`)).join(' ');
  const lines = [`  ${bold(spec.name)} ${cyan(usage)}${note ? dim(` (${note})`) : ''}`];
  lines.push(`      ${firstSentence(spec.description)}`);
  for (const name of names) {
    const property = properties[name]!;
    const facts = [
      valueShape(property),
      required.has(name) ? 'required' : undefined,
      property.default !== undefined ? `default ${JSON.stringify(property.default)}` : undefined,
    ].filter(Boolean);
    const description = property.description ? `: ${firstSentence(property.description)}` : '';
    lines.push(dim(`      ${name} (${facts.join(', ')})${description}`));
  }
  return lines.join('\n');
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
