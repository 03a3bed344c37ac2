// Whether a prepared call may start now, checked again as it starts and not only when it was prepared: an
// approval may have waited while the tool was switched off, or while its circuit breaker opened.
import { type CallOutcome, refusalOutcome } from './call-outcome.js';
import type { BreakerRegistry, CircuitBreaker } from './circuit-breaker.js';
import type { Clock } from './clock.js';
import type { Redactor } from './redaction.js';
import { type Tool, toolOffReason } from './tool.js';

export type CallGate = { open: true; breaker: CircuitBreaker } | { open: false; refusal: CallOutcome };

export interface CallGateDeps {
  breakers: Pick<BreakerRegistry, 'get'>;
  clock: Clock;
  redactor: Pick<Redactor, 'redact'>;
}

/** The breaker the call runs under, or why it may not start; the breaker is not looked at for a tool that is off. */
export async function passCallGate(tool: Tool, deps: CallGateDeps): Promise<CallGate> {
  const off = toolOffReason(tool);
  if (off !== undefined) {
    return { open: false, refusal: refusalOutcome(deps.redactor, tool.name, 'refused_by_policy', off) };
  }
  const breaker = deps.breakers.get(tool.name);
  if (await breaker.canPass()) return { open: true, breaker };
  const retryAt = breaker.reopensAt();
  const wait = retryAt
    ? ` It will be tried again in ${Math.ceil((retryAt - deps.clock.now()) / 1000)} s.`
    : '';
  const message = `${tool.name} is temporarily disabled after repeated failures.${wait}`;
  return { open: false, refusal: refusalOutcome(deps.redactor, tool.name, 'transient', message) };
}
