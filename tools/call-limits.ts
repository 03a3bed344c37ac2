// Per-call time limits: a tool's own timeout_ms folded together with the kernel's deadline and abort signal.
import { z } from 'zod';
import type { ToolContext } from '../agent/tool.js';

/** The optional `timeout_ms` every ops tool accepts, bounded so a model cannot ask for an hour. */
export function timeoutField(defaultMs: number, maxMs: number) {
  return z
    .number()
    .int()
    .min(100)
    .max(maxMs)
    .optional()
    .describe(`Time limit for this call in milliseconds (default ${defaultMs}, at most ${maxMs}).`);
}

export interface CallLimits {
  /** Aborts when the kernel cancels the run or the call's own time is up. */
  signal: AbortSignal;
  /** Epoch ms by which the work must stop. */
  deadline: number;
  /** The time the call was given, for messages. */
  timeoutMs: number;
  remainingMs(): number;
  /** Whether an abort came from the kernel (cancel) rather than the time limit. */
  cancelledByCaller(): boolean;
}

export function callLimits(ctx: ToolContext, requestedMs: number | undefined, defaultMs: number): CallLimits {
  const now = Date.now();
  const wanted = requestedMs ?? defaultMs;
  const deadline = Math.min(Number.isFinite(ctx.deadline) ? ctx.deadline : now + wanted, now + wanted);
  const timeoutMs = Math.max(1, deadline - now);
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
  return {
    signal,
    deadline,
    timeoutMs,
    remainingMs: () => Math.max(0, deadline - Date.now()),
    cancelledByCaller: () => ctx.signal.aborted,
  };
}

/** A readable reason for an aborted call: cancelled by the kernel, or out of time. */
export function abortText(limits: CallLimits): string {
  return limits.cancelledByCaller() ? 'the call was cancelled' : `it timed out after ${limits.timeoutMs} ms`;
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
