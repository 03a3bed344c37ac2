// What a tool call that ran comes to, from how it settled: its result checked, redacted and capped, or a failure
// of the class that tells the model what to do next. The breaker counts what says the tool or its service is
// failing (a timeout, a throw, a malformed result), not the model's mistakes or a target's refusal.
import type { CallSettlement } from './call-deadline.js';
import { type CallOutcome, failureOutcome, timedOutOutcome } from './call-outcome.js';
import type { CallScope } from './call-scope.js';
import { cappedResultJson } from './capped-result.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import { errorMessage } from './errors.js';
import { maskSecretValues, secretValuesOf } from './policy/secret-arguments.js';
import type { Redactor } from './redaction.js';
import { type Tool, ToolResultSchema } from './tool.js';
import { ToolArgumentError, ToolPermissionError } from './tool-errors.js';

export interface SettledCall {
  tool: Tool;
  args: Record<string, unknown>;
  settlement: CallSettlement<unknown>;
  durationMs: number;
  breaker: Pick<CircuitBreaker, 'recordFailure' | 'recordSuccess'>;
  /** Its logger is made only when a throw is logged. */
  scope: Pick<CallScope, 'logger'>;
  redactor: Redactor;
  toolOutputChars: number;
}

export async function settledCallOutcome(call: SettledCall): Promise<CallOutcome> {
  const { tool, args, settlement, durationMs, breaker, redactor } = call;
  // A tool's own words, redacted, and with its declared secrets masked by their exact values.
  const shown = (text: string) => maskSecretValues(redactor.redact(text), secretValuesOf(tool, args));
  switch (settlement.kind) {
    case 'timed_out':
      await breaker.recordFailure();
      return timedOutOutcome(tool.name, settlement.timeoutMs, durationMs);
    case 'cancelled':
      return failureOutcome(
        redactor,
        tool.name,
        'transient',
        `${tool.name} was cancelled.`,
        durationMs,
        false,
      );
    case 'threw': {
      if (settlement.error instanceof ToolArgumentError) {
        // The model's mistake, not the tool's: the breaker is left alone, and the budget does not count it.
        return failureOutcome(
          redactor,
          tool.name,
          'invalid_argument',
          settlement.error.message,
          durationMs,
          false,
        );
      }
      if (settlement.error instanceof ToolPermissionError) {
        // The target works and said no: the breaker is left alone; the message is the target's, redacted.
        const denied = shown(settlement.error.message);
        return failureOutcome(
          redactor,
          tool.name,
          'permission_denied',
          `${tool.name}: ${denied}`,
          durationMs,
        );
      }
      await breaker.recordFailure();
      const message = shown(errorMessage(settlement.error));
      call.scope.logger.warn({ err: message }, 'tool threw');
      return failureOutcome(redactor, tool.name, 'transient', `${tool.name} failed: ${message}`, durationMs);
    }
    case 'returned':
      return returnedOutcome(call, settlement.value);
  }
}

async function returnedOutcome(call: SettledCall, result: unknown): Promise<CallOutcome> {
  const { tool, durationMs, breaker, redactor } = call;
  const name = tool.name;
  const checked = ToolResultSchema.safeParse(result);
  if (!checked.success) {
    await breaker.recordFailure();
    return failureOutcome(redactor, name, 'transient', `${name} returned a malformed result.`, durationMs);
  }
  await breaker.recordSuccess();
  // A declared secret is masked by its exact value too: it need not look like one to redaction.
  const redacted = maskSecretValues(redactor.redactValue(checked.data), secretValuesOf(tool, call.args));
  const content = cappedResultJson(call.toolOutputChars, { tool: name, ...redacted });
  return {
    content,
    ok: redacted.ok,
    summary: redacted.summary,
    data: redacted.data,
    repeated: false,
    durationMs,
    executed: true,
  };
}
