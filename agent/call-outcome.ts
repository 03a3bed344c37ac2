// What a tool call came to, as the model and the record read it: a result, a refusal or failure of a class, or a
// timeout. Shaped here once, so every engine words them alike.
import { formatDuration } from './duration-text.js';
import type { Redactor } from './redaction.js';
import type { ToolBudget } from './tool-budgets.js';
import { type ToolError, type ToolErrorClass, toolErrorContent } from './tool-errors.js';

export interface CallOutcome {
  content: string;
  ok: boolean;
  summary: string;
  data?: unknown;
  errorClass?: ToolErrorClass;
  repeated: boolean;
  durationMs: number;
  /**
   * The call ran and failed in a way that counts against the tool's circuit breaker, or ran and returned: what a
   * tool's budget counts (recorded as the result's `ran`). Refusals, repeats and cancelled calls have it false.
   */
  executed: boolean;
  /** Set when the call was refused because its tool's budget for the run was spent. */
  budgetSpent?: ToolBudget;
}

/** A failure of `errorClass`, its message redacted; `executed` when the call ran (what budgets count). */
export function failureOutcome(
  redactor: Pick<Redactor, 'redact'>,
  tool: string,
  errorClass: ToolErrorClass,
  message: string,
  durationMs: number,
  executed = true,
) {
  const error: ToolError = { class: errorClass, message: redactor.redact(message) };
  return {
    content: toolErrorContent(tool, error),
    ok: false,
    summary: `${errorClass}: ${error.message}`,
    errorClass,
    repeated: false,
    durationMs,
    executed,
  } satisfies CallOutcome;
}

/** A call refused before it ran: a failure that took no time and that no budget or breaker counts. */
export function refusalOutcome(
  redactor: Pick<Redactor, 'redact'>,
  tool: string,
  errorClass: ToolErrorClass,
  message: string,
) {
  return failureOutcome(redactor, tool, errorClass, message, 0, false);
}

/**
 * A tool that did not stop by its deadline (and the grace after it) fails like a tool that reported its own
 * timeout: a result that did not pass, worded with the limit, so a hung target reads as a failure at its
 * timeout everywhere (a patrol check at its severity, the CLI's exit 1), never as a call that did not run.
 */
export function timedOutOutcome(name: string, timeoutMs: number, durationMs: number): CallOutcome {
  const summary = `${name} timed out after ${formatDuration(timeoutMs)}.`;
  const data = { timed_out: true, timeout_ms: timeoutMs };
  return {
    content: JSON.stringify({ tool: name, ok: false, summary, data }),
    ok: false,
    summary,
    data,
    repeated: false,
    durationMs,
    executed: true,
  };
}

/** A result's JSON within `limit` characters: its head and tail, and how much was cut between them. */
export function capContent(limit: number, content: string): string {
  if (content.length <= limit) return content;
  const head = content.slice(0, Math.floor(limit * 0.6));
  const tail = content.slice(content.length - Math.floor(limit * 0.3));
  return `${head}\n[${content.length - head.length - tail.length} characters truncated]\n${tail}`;
}
