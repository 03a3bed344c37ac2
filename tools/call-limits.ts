// Per-call time limits: a tool's own timeout_ms folded into the call's deadline, under a timer the call owns.
import { z } from 'zod';
import { formatDuration } from '../agent/duration-text.js';
import type { ToolContext } from '../agent/tool.js';
import { isToolTimeout, ToolTimeoutError } from '../agent/tool-timeout.js';

/**
 * The optional `timeout_ms` every ops tool accepts, bounded so a model cannot ask for an hour. limits.tool_timeout
 * may cut it shorter, and a result that timed out names the limit the call really had.
 */
export function timeoutField(defaultMs: number, maxMs: number) {
  return z
    .number()
    .int()
    .min(100)
    .max(maxMs)
    .optional()
    .describe(`Time limit for this call in milliseconds (default ${defaultMs}, at most ${maxMs}).`);
}

/** A call's time limits, as the tool's work sees them inside withCallLimits. */
export interface CallLimits {
  /** Aborts when the kernel cancels the run, or with a ToolTimeoutError when the call's time is up. */
  readonly signal: AbortSignal;
  /** Epoch ms by which the work must stop. */
  readonly deadline: number;
  /** The time the call was given, for messages. */
  readonly timeoutMs: number;
  remainingMs(): number;
  /** Whether the signal aborted because the call was cancelled, rather than because its time ran out. */
  cancelledByCaller(): boolean;
}

/**
 * Its signal aborts when the caller's does (a cancel, or the kernel's deadline) or when its own timer fires.
 * Made only by withCallLimits, which disposes of it, so no call can forget to.
 */
class OwnedCallLimits implements CallLimits {
  readonly signal: AbortSignal;
  readonly deadline: number;
  readonly timeoutMs: number;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly forward = () => this.controller.abort(this.caller.reason);

  constructor(
    private readonly caller: AbortSignal,
    callerDeadline: number,
    callerTimeoutMs: number,
    wantedMs: number,
  ) {
    const now = Date.now();
    const callerLeft = Number.isFinite(callerDeadline) ? callerDeadline - now : Number.POSITIVE_INFINITY;
    const callerBinds = callerLeft <= wantedMs;
    this.deadline = callerBinds ? callerDeadline : now + wantedMs;
    // When the caller's limit is the nearer one, say its whole limit, not the few ms less that is left of it.
    this.timeoutMs = !callerBinds
      ? wantedMs
      : Number.isFinite(callerTimeoutMs) && callerTimeoutMs >= callerLeft
        ? callerTimeoutMs
        : Math.max(1, callerLeft);
    this.signal = this.controller.signal;
    if (caller.aborted) {
      this.forward();
      return;
    }
    caller.addEventListener('abort', this.forward, { once: true });
    // A plain timer, not AbortSignal.timeout(): Node 20 can garbage-collect that inside AbortSignal.any().
    this.timer = setTimeout(
      () => this.controller.abort(new ToolTimeoutError(this.timeoutMs)),
      Math.max(1, this.deadline - now),
    );
  }

  remainingMs(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  cancelledByCaller(): boolean {
    return this.signal.aborted && !isToolTimeout(this.signal.reason);
  }

  /** Clears the timer and the listener on the caller's signal; the signal never aborts after this. */
  dispose(): void {
    clearTimeout(this.timer);
    this.caller.removeEventListener('abort', this.forward);
  }
}

/**
 * Runs a tool's work under its time limits: `timeout_ms` (or the tool's default) within the call's deadline,
 * and disposes of them however the work ends, so a finished call leaves no timer or listener behind.
 */
export async function withCallLimits<T>(
  ctx: ToolContext,
  requestedMs: number | undefined,
  defaultMs: number,
  work: (limits: CallLimits) => Promise<T>,
): Promise<T> {
  const limits = new OwnedCallLimits(ctx.signal, ctx.deadline, ctx.timeoutMs, requestedMs ?? defaultMs);
  try {
    return await work(limits);
  } finally {
    limits.dispose();
  }
}

/** A readable reason for a stopped call: cancelled by the kernel, or out of time ("timed out after 10 s"). */
export function abortText(limits: CallLimits): string {
  return limits.cancelledByCaller()
    ? 'the call was cancelled'
    : `it timed out after ${formatDuration(limits.timeoutMs)}`;
}

/** Error text with the system error code when there is one (ECONNREFUSED, ENOTFOUND, ...). */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

export function errorCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Races a promise against the signal, for APIs (dns.lookup) that cannot be cancelled themselves. */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(value >= 100 ? 0 : 1)} ${units[unit]}`;
}

/** Runs work that is no tool call (a sweep of opsbot's own) under a time limit alone, with nothing to cancel it. */
export async function withTimeLimit<T>(
  timeoutMs: number,
  work: (limits: CallLimits) => Promise<T>,
): Promise<T> {
  const limits = new OwnedCallLimits(
    new AbortController().signal,
    Number.POSITIVE_INFINITY,
    timeoutMs,
    timeoutMs,
  );
  try {
    return await work(limits);
  } finally {
    limits.dispose();
  }
}
