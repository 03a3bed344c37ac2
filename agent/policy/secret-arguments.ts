// What an approver and the record may see of a call's arguments: a value redaction would hide is refused unless
// its parameter is declared secret, and a declared secret is shown as "‹secret, 24 chars›", never as itself.
import type { Redactor } from '../redaction.js';
import { type Tool, toolParametersSchema } from '../tool.js';

/** "‹secret, 24 chars›": what a declared secret shows as, on the card, in the record and in the result. */
export function secretPlaceholder(value: string): string {
  return `‹secret, ${[...value].length} chars›`;
}

function isSecret(tool: Pick<Tool, 'secretParameters'>, name: string): boolean {
  return tool.secretParameters?.includes(name) ?? false;
}

/** Every string inside a value (arrays and objects included), with the path to it under the parameter. */
function stringsIn(value: unknown, path: string): Array<{ path: string; text: string }> {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringsIn(item, `${path}[${index}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => stringsIn(item, `${path}.${key}`));
  }
  return [];
}

/**
 * Why a write or danger call may not be asked for or run: one of its arguments holds text redaction would mask,
 * so the card would show `[REDACTED]` where the approver must see what will run. Undefined when nothing would be
 * hidden, or when the parameter holding it is declared `secret: true` (shown as a secret instead). Reads never
 * act, so their arguments are not checked.
 */
export function hiddenArgumentRefusal(
  tool: Pick<Tool, 'name' | 'risk' | 'secretParameters'>,
  args: Record<string, unknown>,
  redactor: Pick<Redactor, 'redact'>,
): string | undefined {
  if (tool.risk === 'read') return undefined;
  for (const [name, value] of Object.entries(args)) {
    if (isSecret(tool, name)) continue;
    const hidden = stringsIn(value, name).find(({ text }) => redactor.redact(text) !== text);
    if (!hidden) continue;
    return (
      `its parameter "${hidden.path}" holds text that looks like a secret, which ` +
      'redaction would hide on the approval card and in the record, so nobody could see what would really run. ' +
      'Do not pass credentials in arguments; if this parameter must carry one, an operator declares it a secret ' +
      `parameter in the settings of ${tool.name} (its \`secret\` set to true).`
    );
  }
  return undefined;
}

/** The arguments with each declared secret replaced by its placeholder: what a card, record or trace shows. */
export function maskSecretArguments(
  tool: Pick<Tool, 'secretParameters'> | undefined,
  args: Record<string, unknown>,
): Record<string, unknown> {
  if (!tool?.secretParameters?.length) return args;
  return Object.fromEntries(
    Object.entries(args).map(([name, value]) => [
      name,
      isSecret(tool, name) && typeof value === 'string' ? secretPlaceholder(value) : value,
    ]),
  );
}

/** A call's arguments as the record, the trace and chat show them: declared secrets masked, then redacted. */
export function shownArguments(
  tool: Pick<Tool, 'secretParameters'> | undefined,
  args: unknown,
  redactor: Pick<Redactor, 'redactValue'>,
): unknown {
  const masked =
    typeof args === 'object' && args !== null && !Array.isArray(args)
      ? maskSecretArguments(tool, args as Record<string, unknown>)
      : args;
  return redactor.redactValue(masked);
}

/** The declared secrets' values in this call, longest first so one inside another is masked whole. */
export function secretValuesOf(
  tool: Pick<Tool, 'secretParameters'> | undefined,
  args: Record<string, unknown> | null | undefined,
): string[] {
  if (!tool?.secretParameters?.length || !args) return [];
  return tool.secretParameters
    .map((name) => (Object.hasOwn(args, name) ? args[name] : undefined))
    .filter((value): value is string => typeof value === 'string' && value.length > 0)
    .sort((a, b) => b.length - a.length);
}

/** Each occurrence of a secret's value in any string inside `value` replaced by its placeholder. */
export function maskSecretValues<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const maskText = (text: string) =>
    secrets.reduce((masked, secret) => masked.split(secret).join(secretPlaceholder(secret)), text);
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return maskText(item);
    if (Array.isArray(item)) return item.map(walk);
    if (typeof item === 'object' && item !== null) {
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
    }
    return item;
  };
  return walk(value) as T;
}

/**
 * A danger tool's parameters the model fills with any text it likes: strings without an enum, a pattern, a
 * format or a constant. The card names them, so the approver reads those values as the model's own words.
 */
export function freeTextParameters(tool: Pick<Tool, 'risk' | 'input' | 'secretParameters'>): string[] {
  if (tool.risk !== 'danger') return [];
  const properties = toolParametersSchema(tool.input).properties;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties as Record<string, Record<string, unknown>>)
    .filter(([name, schema]) => !isSecret(tool, name) && isFreeText(schema))
    .map(([name]) => name);
}

function isFreeText(schema: Record<string, unknown>): boolean {
  const constrained = ['enum', 'const', 'pattern', 'format'].some((key) => schema[key] !== undefined);
  return schema.type === 'string' && !constrained;
}
