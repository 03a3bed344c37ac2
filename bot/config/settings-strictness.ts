// Unknown keys anywhere in the settings are errors, including in sections whose schemas other modules own
// and declare with a plain (key-stripping) z.object.
import { didYouMean } from '../../agent/did-you-mean.js';
import type { SettingsPath } from './settings-problem.js';

export interface UnknownKeyProblem {
  path: SettingsPath;
  message: string;
}

// Just enough of zod's internal definition to walk a schema alongside the value it describes.
interface WalkableDefinition {
  type: string;
  innerType?: Walkable;
  in?: Walkable;
  shape?: Record<string, Walkable>;
  catchall?: Walkable;
  valueType?: Walkable;
  element?: Walkable;
}
export interface Walkable {
  _zod: { def: unknown };
}

function definitionOf(schema: Walkable): WalkableDefinition {
  return schema._zod.def as WalkableDefinition;
}

/** Through defaults, optionals and the input side of pipes (transforms) to the schema that sees the value. */
function unwrap(schema: Walkable): Walkable {
  let current = schema;
  for (;;) {
    const definition = definitionOf(current);
    const inner = definition.innerType ?? (definition.type === 'pipe' ? definition.in : undefined);
    if (inner === undefined) return current;
    current = inner;
  }
}

/** The keys an object schema accepts at `path`, for suggestions; empty when the path is not an object. */
export function knownKeys(schema: Walkable, path: SettingsPath): string[] {
  let current: Walkable | undefined = unwrap(schema);
  for (const part of path) {
    const definition = definitionOf(current);
    if (definition.type === 'object') current = definition.shape?.[String(part)];
    else if (definition.type === 'record') current = definition.valueType;
    else if (definition.type === 'array') current = definition.element;
    else return [];
    if (current === undefined) return [];
    current = unwrap(current);
  }
  const definition = definitionOf(current);
  return definition.type === 'object' ? Object.keys(definition.shape ?? {}) : [];
}

export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const hint = didYouMean(key, known);
  if (hint !== '') return `unknown key${hint}`;
  return known.length === 0 ? 'unknown key' : `unknown key; the keys allowed here are ${known.join(', ')}`;
}

/**
 * Keys in `value` that a key-stripping object schema would silently drop. Strict objects are skipped: zod
 * reports those itself.
 */
export function unknownKeyProblems(
  schema: Walkable,
  value: unknown,
  path: SettingsPath = [],
): UnknownKeyProblem[] {
  const definition = definitionOf(unwrap(schema));
  if (typeof value !== 'object' || value === null) return [];
  const entries = Object.entries(value);
  if (definition.type === 'object' && !Array.isArray(value)) {
    const shape = definition.shape ?? {};
    const stripsUnknownKeys = definition.catchall === undefined;
    return entries.flatMap(([key, inner]) => {
      if (Object.hasOwn(shape, key)) return unknownKeyProblems(shape[key]!, inner, [...path, key]);
      return stripsUnknownKeys
        ? [{ path: [...path, key], message: unknownKeyMessage(key, Object.keys(shape)) }]
        : [];
    });
  }
  if (definition.type === 'record' && definition.valueType !== undefined && !Array.isArray(value)) {
    const valueType = definition.valueType;
    return entries.flatMap(([key, inner]) => unknownKeyProblems(valueType, inner, [...path, key]));
  }
  if (definition.type === 'array' && definition.element !== undefined && Array.isArray(value)) {
    const element = definition.element;
    return value.flatMap((inner, index) => unknownKeyProblems(element, inner, [...path, index]));
  }
  return [];
}
