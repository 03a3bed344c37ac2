// Replaces credentials in tool output, logs, traces, prompts and chat text with a redaction marker.
import safeRegex from 'safe-regex2';
import {
  AWS_ACCESS_KEY_ID,
  AWS_SECRET_KEY_ALONE,
  AWS_SECRET_KEY_NEAR_ID,
  anyCase,
  looksLikeAwsSecretKey,
  SECRET_KEYS,
  SHAPES,
  type Shape,
} from './credential-shapes.js';
import { CallerError, ErrorCode } from './errors.js';
import { redactKeyBlockLines } from './private-key-blocks.js';
import { REDACTED } from './redaction-marker.js';
import { maskValues, secretValueForms } from './secret-values.js';

export { REDACTED };

interface CompiledShape {
  /** The number of the capturing group around the whole shape. */
  group: number;
  /** The number of its `pre` group, when it has one. */
  preGroup: number | undefined;
  confirm: Shape['confirm'];
}

interface CompiledShapes {
  pattern: RegExp;
  shapes: CompiledShape[];
}

/**
 * One alternation of every shape, each wrapped in a numbered group so the replacer knows which matched. The
 * groups are unnamed: with named ones, every match builds an object of all of them, which was most of the time
 * redaction took.
 */
function compileShapes(shapes: Shape[]): CompiledShapes {
  const compiled: CompiledShape[] = [];
  let group = 1;
  const parts = shapes.map((shape) => {
    const hasPre = shape.source.includes('(?<pre>');
    // Group numbers are counted here, so a shape may capture nothing but its `pre`.
    const groupsInShape = (new RegExp(`${shape.source}|`).exec('')?.length ?? 1) - 1;
    if (groupsInShape !== (hasPre ? 1 : 0)) throw new Error(`shape ${shape.kind} has a capturing group`);
    compiled.push({ group, preGroup: hasPre ? group + 1 : undefined, confirm: shape.confirm });
    group += hasPre ? 2 : 1;
    return `(${shape.source.replace('(?<pre>', '(')})`;
  });
  return { pattern: new RegExp(parts.join('|'), 'g'), shapes: compiled };
}

const BUILT_IN = compileShapes(SHAPES);

/** Keys whose values are hidden whatever they look like, when redacting structured values. */
const SECRET_KEY_NAME = new RegExp(`(?:${SECRET_KEYS}|${anyCase('authorization')}|${anyCase('cookie')})$`);

const OPENING_QUOTE = /^(?:\\"|"|')/;

function replaceBuiltIn(match: string, ...groups: unknown[]): string {
  for (const shape of BUILT_IN.shapes) {
    if (groups[shape.group - 1] === undefined) continue;
    if (shape.confirm?.(match) === false) return match;
    const pre = shape.preGroup === undefined ? undefined : (groups[shape.preGroup - 1] as string);
    if (pre === undefined) return REDACTED;
    // A quoted value's opening quote is matched after the kept key; keep it so the quoting stays balanced.
    const quote = OPENING_QUOTE.exec(match.slice(pre.length))?.[0] ?? '';
    return `${pre}${quote}${REDACTED}`;
  }
  return match;
}

function compileExtra(source: string, index: number): RegExp {
  const where = `redaction.patterns[${index}] ${JSON.stringify(source)}`;
  let pattern: RegExp;
  try {
    pattern = new RegExp(source, 'g');
  } catch (error) {
    throw new CallerError(
      ErrorCode.InvalidSettings,
      `${where} is not a valid regular expression: ${(error as Error).message}`,
      { cause: error },
    );
  }
  // Redaction runs on every log line, so a pattern that can backtrack exponentially would stall the bot.
  if (!safeRegex(pattern)) {
    throw new CallerError(
      ErrorCode.InvalidSettings,
      `${where} may take exponential time (nested quantifiers); rewrite it without repetition inside repetition`,
    );
  }
  return pattern;
}

export interface RedactorOptions {
  /**
   * Exact secret values, hidden whatever they look like, also JSON-escaped and line by line (secret-values.ts):
   * the `${VAR}` values of the configured headers, which a server could echo back in no recognisable shape.
   * Values shorter than MIN_MASKED_VALUE_CHARS are ignored, so a short one cannot mask ordinary text.
   */
  secretValues?: Iterable<string>;
}

export class Redactor {
  private readonly extra: RegExp[];
  private readonly secretForms: string[];

  /** `extraPatterns` are regular expression sources from settings; their whole match is redacted. */
  constructor(extraPatterns: string[] = [], options: RedactorOptions = {}) {
    this.extra = extraPatterns.map(compileExtra);
    this.secretForms = secretValueForms(options.secretValues ?? []);
  }

  /**
   * Redacts one whole output. Pass the whole output, not a line or chunk of it: a key block is found from any
   * part of it that shows, and an access key id anywhere in it widens what counts as an AWS secret key.
   */
  redact(text: string): string {
    return this.redactWith(text, AWS_ACCESS_KEY_ID.test(text));
  }

  private redactWith(text: string, hasAwsAccessKeyId: boolean): string {
    // Exact values first: a shape matching part of one would otherwise leave the rest of it showing.
    let result = maskValues(text, this.secretForms);
    result = result.replace(BUILT_IN.pattern, replaceBuiltIn);
    result = redactKeyBlockLines(result, REDACTED);
    result = hasAwsAccessKeyId
      ? result.replace(AWS_SECRET_KEY_NEAR_ID, REDACTED)
      : result.replace(AWS_SECRET_KEY_ALONE, (match) => (looksLikeAwsSecretKey(match) ? REDACTED : match));
    for (const pattern of this.extra) {
      result = result.replace(pattern, (match) => (match === '' ? match : REDACTED));
    }
    return result;
  }

  /**
   * A redacted deep copy: strings inside plain objects and arrays are redacted, and values under
   * secret-looking keys (`password`, `apiKey`, `SLACK_BOT_TOKEN`) are hidden whatever their shape.
   * Other objects (Date, Map, class instances) are returned as they are.
   */
  redactValue<T>(value: T): T {
    // The value is one output: an access key id in one field makes a secret key in another a secret.
    const hasAwsAccessKeyId = someString(value, (text) => AWS_ACCESS_KEY_ID.test(text), new WeakSet());
    return this.redactDeep(value, new WeakMap(), hasAwsAccessKeyId) as T;
  }

  private redactDeep(value: unknown, seen: WeakMap<object, unknown>, aws: boolean): unknown {
    if (typeof value === 'string') return this.redactWith(value, aws);
    if (value === null || typeof value !== 'object') return value;
    const copied = seen.get(value);
    if (copied !== undefined) return copied;
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      seen.set(value, copy);
      for (const item of value) copy.push(this.redactDeep(item, seen, aws));
      return copy;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return value;
    const copy: Record<string, unknown> = {};
    seen.set(value, copy);
    for (const [key, item] of Object.entries(value)) {
      const hidden = SECRET_KEY_NAME.test(key) && (typeof item === 'string' || typeof item === 'number');
      // A key is kept as it is but for an exact secret value in it, which would otherwise show as a name.
      copy[maskValues(key, this.secretForms)] =
        hidden && item !== '' ? REDACTED : this.redactDeep(item, seen, aws);
    }
    return copy;
  }
}

function someString(value: unknown, test: (text: string) => boolean, seen: WeakSet<object>): boolean {
  if (typeof value === 'string') return test(value);
  if (value === null || typeof value !== 'object' || seen.has(value)) return false;
  seen.add(value);
  const items = Array.isArray(value) ? value : Object.values(value);
  return items.some((item) => someString(item, test, seen));
}
