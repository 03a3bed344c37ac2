// A call's arguments checked against its tool's input schema: parsed (defaults filled in), a question for the
// required fields the model left out, or the schema's complaints in words the model can act on.
import { findMissingFields, missingFieldChoices, missingFieldsQuestion } from './missing-arguments.js';
import type { Tool } from './tool.js';
import type { ToolRegistry } from './tool-registry.js';

export type ArgumentCheck =
  | { kind: 'parsed'; args: Record<string, unknown> }
  | { kind: 'missing'; question: string; choices: string[]; fields: string[] }
  | { kind: 'invalid'; message: string };

export function checkArguments(
  tool: Tool,
  args: Record<string, unknown>,
  registry: Pick<ToolRegistry, 'spec'>,
): ArgumentCheck {
  const parsed = tool.input.safeParse(args);
  if (parsed.success) return { kind: 'parsed', args: parsed.data as Record<string, unknown> };
  const missing = findMissingFields(parsed.error, args);
  const spec = registry.spec(tool.name);
  if (missing && spec) {
    return {
      kind: 'missing',
      fields: missing,
      question: missingFieldsQuestion(spec, missing),
      choices: missingFieldChoices(spec, missing),
    };
  }
  return {
    kind: 'invalid',
    message: `Invalid arguments for ${tool.name}: ${issuesText(parsed.error.issues)}`,
  };
}

/** A schema's complaints in one line: each field's path (or "arguments" for the whole) and what is wrong. */
export function issuesText(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  return issues
    .map((issue) => `${issue.path.map(String).join('.') || 'arguments'}: ${issue.message}`)
    .join('; ');
}
