// Compiles a search pattern, plain or regex: unsafe regexes are refused, and regex work runs under a deadline.
import { Worker } from 'node:worker_threads';
import safeRegex from 'safe-regex2';

export const MAX_PATTERN_LENGTH = 512;

/** A refusal the model should read: the pattern cannot be used as given. */
export class PatternRefusal extends Error {
  override name = 'PatternRefusal';
}

/** Matching ran past the deadline; the regex worker was terminated. */
export class PatternTimeout extends Error {
  override name = 'PatternTimeout';
}

export interface PatternOptions {
  pattern: string;
  regex: boolean;
  ignoreCase: boolean;
}

export interface LineMatcher {
  /** Which of `lines` match, in order. Rejects with PatternTimeout when the deadline passes. */
  match(lines: string[], deadline: number): Promise<boolean[]>;
  close(): Promise<void>;
}

/**
 * Checks a pattern before any file is opened: length, NUL bytes, regex syntax, and nested repetition
 * (safe-regex2 refuses `(a+)+$` and its kind). Returns the compiled regex for regex patterns.
 */
export function validatePattern(options: PatternOptions): RegExp | undefined {
  const { pattern } = options;
  if (pattern.length === 0) throw new PatternRefusal('the pattern is empty');
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PatternRefusal(`the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  if (pattern.includes('\0')) throw new PatternRefusal('the pattern contains a NUL byte');
  if (!options.regex) return undefined;
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern, options.ignoreCase ? 'i' : '');
  } catch (error) {
    throw new PatternRefusal(`the regex does not compile: ${(error as Error).message}`);
  }
  if (!safeRegex(compiled)) {
    throw new PatternRefusal(
      `the regex ${JSON.stringify(pattern)} has nested repetition and could take exponential time; simplify it (for example, (a+)+ becomes a+)`,
    );
  }
  return compiled;
}

// Plain CommonJS so it runs as an eval'd worker without a TypeScript loader.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', (lines) => {
  const result = new Array(lines.length);
  for (let i = 0; i < lines.length; i++) result[i] = regex.test(lines[i]);
  parentPort.postMessage(result);
});
`;

/**
 * Regexes run in a worker thread, because a JavaScript regex cannot be interrupted: a pattern with polynomial
 * backtracking that safe-regex2 lets through is stopped by terminating the worker at the deadline.
 */
class RegexWorkerMatcher implements LineMatcher {
  private worker: Worker | undefined;

  constructor(private readonly regex: RegExp) {}

  private start(): Worker {
    this.worker ??= new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source: this.regex.source, flags: this.regex.flags },
      resourceLimits: { maxOldGenerationSizeMb: 64 },
    });
    return this.worker;
  }

  match(lines: string[], deadline: number): Promise<boolean[]> {
    const worker = this.start();
    return new Promise<boolean[]>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      const onMessage = (result: boolean[]) => {
        cleanup();
        resolve(result);
      };
      const onError = (error: Error) => {
        cleanup();
        this.worker = undefined;
        reject(error);
      };
      const timer = setTimeout(
        () => {
          cleanup();
          this.worker = undefined;
          void worker.terminate();
          reject(new PatternTimeout('regex matching ran out of time'));
        },
        Math.max(1, deadline - Date.now()),
      );
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage(lines);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}

class PlainMatcher implements LineMatcher {
  private readonly test: (line: string) => boolean;

  constructor(pattern: string, ignoreCase: boolean) {
    const lower = pattern.toLowerCase();
    this.test = ignoreCase ? (line) => line.toLowerCase().includes(lower) : (line) => line.includes(pattern);
  }

  async match(lines: string[], deadline: number): Promise<boolean[]> {
    if (Date.now() > deadline) throw new PatternTimeout('matching ran out of time');
    return lines.map(this.test);
  }

  async close(): Promise<void> {}
}

/** Validates the pattern (throws PatternRefusal) and returns a matcher; close it when done. */
export function createLineMatcher(options: PatternOptions): LineMatcher {
  const regex = validatePattern(options);
  return regex ? new RegexWorkerMatcher(regex) : new PlainMatcher(options.pattern, options.ignoreCase);
}
