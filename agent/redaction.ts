// Replaces credentials in tool output, logs, traces, prompts and chat text with a redaction marker.
import safeRegex from 'safe-regex2';
import { CallerError, ErrorCode } from './errors.js';
import { redactKeyBlockLines } from './private-key-blocks.js';

/** The one marker every redaction leaves behind, so readers and tests can look for a single string. */
export const REDACTED = '[REDACTED]';

/**
 * A built-in credential shape. A `pre` group, when present, is kept verbatim (the key in `password=…`,
 * the word Bearer, the user in a URL), so the reader still sees what was hidden.
 */
interface Shape {
  kind: string;
  source: string;
}

/** Case-insensitive letters without the `i` flag, which would also loosen the case-sensitive shapes. */
function anyCase(word: string): string {
  return word.replace(/[a-z]/gi, (letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`);
}

// Every shape starts with a literal or a lookbehind on the previous character, so the combined pass
// only does real work at plausible starts and stays linear on long unbroken blobs.
const TOKEN_CHAR = 'A-Za-z0-9_\\-';
const SECRET_KEYS = [
  'password',
  'passwd',
  'pwd',
  'secret',
  'token',
  'api[_-]?key',
  'access[_-]?key',
  'private[_-]?key',
  'secret[_-]?key',
  // DB_PASS=, SIGNING_KEY: ...; the separator is required so that bypass= and monkey= survive.
  '[_-]pass',
  '[_-]key',
]
  .map((key) => key.replace(/[a-z]+/g, anyCase))
  .join('|');

const SHAPES: Shape[] = [
  {
    kind: 'private-key',
    source: `-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\\s\\S]*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|$)`,
  },
  // The whole webhook URL is the credential; the path names workspace, channel and secret.
  {
    kind: 'slack-webhook',
    source: `(?<pre>${anyCase('https')}://hooks\\.slack\\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_/-]{20,}`,
  },
  { kind: 'stripe-key', source: `(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}` },
  { kind: 'google-api-key', source: `(?<![${TOKEN_CHAR}])AIza[${TOKEN_CHAR}]{35}(?![${TOKEN_CHAR}])` },
  { kind: 'gitlab-token', source: `(?<![A-Za-z0-9_])gl(?:pat|dt|rt|ptt|cbt)-[${TOKEN_CHAR}]{20,}` },
  { kind: 'npm-token', source: `(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])` },
  // Bot, user, refresh (xoxe-, xoxe.xoxp-), legacy and app-level tokens.
  {
    kind: 'slack-token',
    source: `(?<![A-Za-z0-9])(?:xox[abeoprs](?:\\.xox[abp])?|xapp)-[A-Za-z0-9][A-Za-z0-9-]{8,}`,
  },
  // sk-, sk-proj-, sk-svcacct-; a digit is required so that hyphenated words like sk-learn-… survive.
  {
    kind: 'openai-key',
    source: `(?<![${TOKEN_CHAR}])sk-(?=[${TOKEN_CHAR}]{0,300}?[0-9])[${TOKEN_CHAR}]{20,}`,
  },
  // base64 of a numeric snowflake (starts M, N or O), a 6-character timestamp and an HMAC.
  {
    kind: 'discord-token',
    source: `(?<![${TOKEN_CHAR}.])[MNO][${TOKEN_CHAR}]{23,27}\\.[${TOKEN_CHAR}]{6}\\.[${TOKEN_CHAR}]{27,}`,
  },
  {
    kind: 'jwt',
    source: `(?<![${TOKEN_CHAR}])eyJ[${TOKEN_CHAR}]{8,}\\.eyJ[${TOKEN_CHAR}]{8,}\\.[${TOKEN_CHAR}]+`,
  },
  { kind: 'aws-access-key', source: `(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])` },
  {
    kind: 'github-token',
    source: `(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`,
  },
  // The header keeps its scheme word; the credential may be short because the header says what it is.
  {
    kind: 'authorization-header',
    source: `(?<pre>(?<![A-Za-z0-9-])${anyCase('authorization')}["']?[ \\t]*[:=][ \\t]*["']?(?:${anyCase('bearer')}[ \\t]+|${anyCase('basic')}[ \\t]+|${anyCase('token')}[ \\t]+)?)[^\\s"',;]+`,
  },
  // A bare "bearer X" outside a header needs X to look like a credential, not an English word.
  {
    kind: 'bearer-token',
    source: `(?<pre>(?<![A-Za-z0-9])${anyCase('bearer')}[ \\t]+)(?=[A-Za-z0-9._~+/-]*[0-9._~+/-]|[A-Za-z]{20})[A-Za-z0-9._~+/-]{8,}=*`,
  },
  // scheme://user:password@host keeps the user and the host.
  {
    kind: 'url-password',
    source: `(?<pre>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\\s:/@"'<>]*:)[^\\s/?#"'<>]+(?=@)`,
  },
  // password=…, "password": "…", SLACK_BOT_TOKEN=…; the key ends with the keyword so max_tokens survives.
  {
    kind: 'secret-value',
    source:
      `(?<pre>(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,40}?(?:${SECRET_KEYS})(?:\\\\?["'])?[ \\t]*[=:][ \\t]*)` +
      `(?:\\\\"(?:[^"\\\\\\n]|\\\\(?!"))+(?=\\\\")` + // value inside escaped quotes: {\"password\":\"x\"}
      `|"(?:[^"\\\\\\n]|\\\\.)+(?=")` + // "value" with JSON escapes, closing quote kept
      `|'[^'\\n]+(?=')` +
      `|(?![\\\\"'])[^\\s"'&,;<>]+)`,
  },
];

interface CompiledShapes {
  pattern: RegExp;
  kinds: string[];
}

/** One alternation of every shape, each wrapped in a numbered group so the replacer knows which matched. */
function compileShapes(shapes: Shape[]): CompiledShapes {
  const parts = shapes.map(
    (shape, index) => `(?<s${index}>${shape.source.replace('(?<pre>', `(?<pre${index}>`)})`,
  );
  return { pattern: new RegExp(parts.join('|'), 'g'), kinds: shapes.map((shape) => shape.kind) };
}

const BUILT_IN = compileShapes(SHAPES);

/** An access key id anywhere in an output makes every bare 40-character secret-key shape in it a secret. */
const AWS_ACCESS_KEY_ID = /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/;
/** 40 base64 characters with both cases, so git SHA-1s (lower-case hex) and upper-case words survive. */
const AWS_SECRET_KEY =
  /(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

/** Keys whose values are hidden whatever they look like, when redacting structured values. */
const SECRET_KEY_NAME = new RegExp(`(?:${SECRET_KEYS}|${anyCase('authorization')}|${anyCase('cookie')})$`);

const OPENING_QUOTE = /^(?:\\"|"|')/;

function replaceBuiltIn(match: string, ...rest: unknown[]): string {
  const groups = rest.at(-1) as Record<string, string | undefined>;
  for (let index = 0; index < BUILT_IN.kinds.length; index++) {
    if (groups[`s${index}`] === undefined) continue;
    const pre = groups[`pre${index}`];
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

export class Redactor {
  private readonly extra: RegExp[];

  /** `extraPatterns` are regular expression sources from settings; their whole match is redacted. */
  constructor(extraPatterns: string[] = []) {
    this.extra = extraPatterns.map(compileExtra);
  }

  /**
   * Redacts one whole output. Pass the whole output, not a line or chunk of it: a key block is found from any
   * part of it that shows, and an AWS secret key is recognised by the access key id elsewhere in the output.
   */
  redact(text: string): string {
    return this.redactWith(text, AWS_ACCESS_KEY_ID.test(text));
  }

  private redactWith(text: string, hasAwsAccessKeyId: boolean): string {
    let result = text.replace(BUILT_IN.pattern, replaceBuiltIn);
    result = redactKeyBlockLines(result, REDACTED);
    if (hasAwsAccessKeyId) result = result.replace(AWS_SECRET_KEY, REDACTED);
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
      copy[key] = hidden && item !== '' ? REDACTED : this.redactDeep(item, seen, aws);
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
