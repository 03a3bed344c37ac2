// The process logger: JSON lines in production, readable lines on a terminal, and never a secret in either.
import { createRequire } from 'node:module';
import pino from 'pino';
import { escapeControls } from './control-characters.js';

export interface CreateLoggerOptions {
  level: pino.LevelWithSilent;
  /** Human-readable output; defaults to true when writing to stdout and stdout is a terminal. */
  pretty?: boolean;
  /**
   * Applied to the message and to every string in every record and binding, errors included. Control characters
   * are made visible after it, always, so a log line read on a terminal cannot act on it.
   */
  redact?: (text: string) => string;
  /** Where lines go; stdout when absent. */
  destination?: pino.DestinationStream;
}

// Deep enough for any sane log record; deeper values are summarized instead of walked.
const MAX_DEPTH = 8;

export function createLogger(options: CreateLoggerOptions): pino.Logger {
  const redact = options.redact ? (text: string) => escapeControls(options.redact!(text)) : escapeControls;
  const toTerminal = options.destination === undefined && process.stdout.isTTY === true;
  const pretty = options.pretty ?? toTerminal;
  const loggerOptions: pino.LoggerOptions = { level: options.level };
  loggerOptions.hooks = {
    // Every argument: the merging object, the message and any printf-style values.
    logMethod(args, method) {
      // pino files a lone Error under `err`; do it here, before the Error becomes a plain object.
      const [first, ...rest] = args;
      const wrapped = first instanceof Error ? [{ err: first }, ...rest] : args;
      const cleaned = wrapped.map((argument) => redactValue(argument, redact));
      method.apply(this, cleaned as Parameters<pino.LogFn>);
    },
  };
  // The base bindings (pid, hostname) go through here; child bindings do not, see redactBindings.
  loggerOptions.formatters = { bindings: (bindings) => redactValue(bindings, redact) as pino.Bindings };
  // Errors are already serialized, and redacted, by redactValue; serializing again would lose their type.
  loggerOptions.serializers = { err: (value: unknown) => value };

  // Synchronous output: the last lines before a crash or a process.exit must not sit in a buffer.
  const target = options.destination ?? pino.destination({ dest: 1, sync: true });
  const logger = pino(loggerOptions, pretty ? prettyDestination(target, toTerminal) : target);
  redactBindings(logger, redact);
  return logger;
}

/**
 * Formats each JSON line in the caller's turn and writes it on, so pretty output is as synchronous as JSON.
 * pino-pretty loads with the first line: a process that logs nothing (most CLI commands) never loads it.
 */
function prettyDestination(target: pino.DestinationStream, colorize: boolean): pino.DestinationStream {
  let format: ((line: string) => string) | undefined;
  return {
    write: (line: string) => {
      format ??= loadPrettyFactory()({ colorize });
      target.write(format(line));
    },
  };
}

function loadPrettyFactory(): typeof import('pino-pretty').prettyFactory {
  return (createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty')).prettyFactory;
}

/**
 * pino applies `formatters.bindings` to the root's bindings only, so `child({...})` and `setBindings` are
 * wrapped instead. Children are created with Object.create(parent), so they inherit the wrapped methods.
 */
function redactBindings(logger: pino.Logger, redact: (text: string) => string): void {
  const child = logger.child;
  const setBindings = logger.setBindings;
  logger.child = function (this: pino.Logger, bindings, childOptions) {
    return child.call(this, redactValue(bindings, redact) as pino.Bindings, childOptions);
  } as typeof logger.child;
  logger.setBindings = function (this: pino.Logger, bindings) {
    setBindings.call(this, redactValue(bindings, redact) as pino.Bindings);
  };
}

/**
 * A copy of `value` with `redact` applied to every string in it. Errors are serialized first (type, message
 * and stack with their causes, own fields), because pino would otherwise write their message and stack as is.
 */
export function redactValue(
  value: unknown,
  redact: (text: string) => string,
  depth = 0,
  seen = new WeakSet<object>(),
): unknown {
  if (typeof value === 'string') return redact(value);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Object]';
  seen.add(value);
  const walk = (inner: unknown) => redactValue(inner, redact, depth + 1, seen);
  try {
    if (value instanceof Error) return walk({ ...pino.stdSerializers.err(value) });
    if (Array.isArray(value)) return value.map(walk);
    // Dates, URLs and Buffers become JSON through toJSON; redact what they would print (a URL may hold a password).
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      return walk((value as { toJSON: () => unknown }).toJSON());
    }
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) copy[key] = walk(inner);
    return copy;
  } finally {
    seen.delete(value);
  }
}
