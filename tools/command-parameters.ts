// Typed command parameters: the zod schema a configured command accepts, and safe substitution into argv.
import safeRegex from 'safe-regex2';
import { z } from 'zod';
import type { CommandSettings } from './tool-settings-schema.js';

type ParameterSettings = CommandSettings['parameters'][string];
type Value = string | number | boolean;

/** A whole argument that is exactly one placeholder, such as "{service}". */
const WHOLE_PLACEHOLDER = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const ANY_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
export const MAX_ARGUMENT_LENGTH = 4096;

/** A settings mistake in one command, named so the error points at the right key. */
export class CommandSettingsError extends Error {
  override name = 'CommandSettingsError';
}

/** The text a value becomes as an argument. */
export function argumentText(value: Value): string {
  return typeof value === 'string' ? value : String(value);
}

function valueSchema(where: string, parameter: ParameterSettings): z.ZodType {
  const { type } = parameter;
  if (parameter.secret && (type !== 'string' || parameter.enum)) {
    throw new CommandSettingsError(`${where}.secret: only a string parameter without an enum can be secret`);
  }
  if (parameter.enum) {
    const values = parameter.enum;
    if (values.length === 0) throw new CommandSettingsError(`${where}.enum is empty`);
    const wrongType = values.find((value) =>
      type === 'string' ? typeof value !== 'string' : typeof value !== 'number' || type === 'boolean',
    );
    if (wrongType !== undefined) {
      throw new CommandSettingsError(`${where}.enum value ${JSON.stringify(wrongType)} is not a ${type}`);
    }
    if (type === 'string') return z.enum(values as [string, ...string[]]);
    const literals = values.map((value) => z.literal(value));
    return literals.length === 1
      ? literals[0]!
      : z.union(literals as [z.ZodLiteral, z.ZodLiteral, ...z.ZodLiteral[]]);
  }
  if (type === 'boolean') return z.boolean();
  if (type === 'integer') return z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
  if (type === 'number') return z.number().refine(Number.isFinite, 'must be a finite number');
  let schema = z
    .string()
    .max(MAX_ARGUMENT_LENGTH)
    .refine((value) => !value.includes('\0'), 'must not contain a NUL byte');
  if (parameter.pattern !== undefined) {
    let regex: RegExp;
    try {
      // The pattern must match the whole value, or "api; rm -rf /" would pass a pattern like "[a-z]+".
      regex = new RegExp(`^(?:${parameter.pattern})$`);
    } catch (error) {
      throw new CommandSettingsError(`${where}.pattern does not compile: ${(error as Error).message}`);
    }
    if (!safeRegex(regex)) throw new CommandSettingsError(`${where}.pattern could take exponential time`);
    // As a regex, not a refine: the model and the approval card then see the pattern in the JSON Schema.
    schema = schema.regex(regex, `must match the pattern ${parameter.pattern}`);
  }
  return schema;
}

/** Builds the zod shape for a command's parameters. Throws CommandSettingsError at start-up on a bad one. */
export function parameterShape(commandName: string, command: CommandSettings): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, parameter] of Object.entries(command.parameters)) {
    const where = `tools.commands.${commandName}.parameters.${name}`;
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(name) || name === 'timeout_ms') {
      throw new CommandSettingsError(`${where}: the name must be snake_case and not timeout_ms`);
    }
    let schema = valueSchema(where, parameter);
    if (!parameter.allow_leading_dash) {
      schema = schema.refine(
        (value) => !argumentText(value as Value).startsWith('-'),
        'must not start with "-" (it would be read as an option)',
      );
    }
    const described = schema.describe(parameter.description);
    if (parameter.default !== undefined) {
      const checked = described.safeParse(parameter.default);
      if (!checked.success) {
        throw new CommandSettingsError(`${where}.default: ${checked.error.issues[0]?.message ?? 'invalid'}`);
      }
      shape[name] = described.default(checked.data as never);
    } else {
      shape[name] = parameter.required ? described : described.optional();
    }
  }
  checkGrantPatterns(commandName, command, shape);
  return shape;
}

/** Each pattern widens declared parameters only, to values each parameter itself accepts. */
function checkGrantPatterns(commandName: string, command: CommandSettings, shape: Record<string, z.ZodType>) {
  for (const [pattern, widened] of Object.entries(command.grant_patterns ?? {})) {
    for (const [name, values] of Object.entries(widened)) {
      const where = `tools.commands.${commandName}.grant_patterns.${pattern}.${name}`;
      const schema = shape[name];
      if (!schema) throw new CommandSettingsError(`${where}: ${name} is not a declared parameter`);
      for (const value of values) {
        const checked = schema.safeParse(value);
        if (!checked.success)
          throw new CommandSettingsError(
            `${where}: ${JSON.stringify(value)} ${checked.error.issues[0]?.message ?? 'is not a value it accepts'}`,
          );
      }
    }
  }
}

/**
 * Checks the argv template at start-up: the program is fixed, every placeholder is a whole argument naming a
 * declared parameter, and every parameter is used.
 */
export function checkArgvTemplate(commandName: string, command: CommandSettings): void {
  const where = `tools.commands.${commandName}.argv`;
  const declared = new Set(Object.keys(command.parameters));
  const used = new Set<string>();
  command.argv.forEach((argument, index) => {
    const whole = WHOLE_PLACEHOLDER.exec(argument);
    if (whole?.[1] && declared.has(whole[1])) {
      if (index === 0) throw new CommandSettingsError(`${where}[0]: the program cannot be a parameter`);
      used.add(whole[1]);
      return;
    }
    if (whole?.[1])
      throw new CommandSettingsError(`${where}[${index}]: {${whole[1]}} is not a declared parameter`);
    for (const match of argument.matchAll(ANY_PLACEHOLDER)) {
      if (match[1] && declared.has(match[1])) {
        throw new CommandSettingsError(
          `${where}[${index}]: "${argument}" puts {${match[1]}} inside a larger argument; a placeholder must be a whole argument (write ["--flag", "{${match[1]}}"] instead of "--flag={${match[1]}}")`,
        );
      }
    }
  });
  for (const name of declared) {
    if (!used.has(name))
      throw new CommandSettingsError(`tools.commands.${commandName}.parameters.${name} is not used in argv`);
  }
}

/**
 * The argument list for one call: each whole placeholder becomes exactly one argument, literal text that no
 * shell ever sees. An optional parameter that was not given drops its argument.
 */
export function substituteArguments(argv: string[], values: Record<string, unknown>): string[] {
  const result: string[] = [];
  for (const argument of argv.slice(1)) {
    const name = WHOLE_PLACEHOLDER.exec(argument)?.[1];
    if (name === undefined) {
      result.push(argument);
      continue;
    }
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (value !== undefined) result.push(argumentText(value as Value));
  }
  return result;
}
