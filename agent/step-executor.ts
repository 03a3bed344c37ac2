// The one step executor every engine shares: validate, gate, guard and run a tool call, and shape its result.
// What each step means lives beside it: preparing a call (call-preparation.ts), the check as it starts
// (call-gate.ts), and what its settlement comes to (settled-call-outcome.ts).

import { settleWithinDeadline } from './call-deadline.js';
import { passCallGate } from './call-gate.js';
import type { CallOutcome } from './call-outcome.js';
import { type CallPreparation, type CallPreparationDeps, prepareCall } from './call-preparation.js';
import { CallScope } from './call-scope.js';
import type { BreakerRegistry } from './circuit-breaker.js';
import type { Logger } from './logger.js';
import { shownArguments } from './policy/secret-arguments.js';
import type { PlannedCall, Run } from './run.js';
import { settledCallOutcome } from './settled-call-outcome.js';
import type { Tool, ToolContext } from './tool.js';

export type { CallOutcome } from './call-outcome.js';
export type { CallPreparation } from './call-preparation.js';

/** What the executor needs: what preparing a call needs, and the breakers, logger and limits for running it. */
export interface StepExecutorOptions extends CallPreparationDeps {
  breakers: BreakerRegistry;
  logger: Logger;
  toolTimeoutMs: number;
  toolOutputChars: number;
}

export class StepExecutor {
  constructor(private readonly options: StepExecutorOptions) {}

  /** Everything about a call that can be decided without running it. */
  prepare(run: Run, call: PlannedCall): CallPreparation {
    return prepareCall(this.options, run, call);
  }

  /**
   * Runs a prepared call under its breaker and time limit; never throws. The limit is the tool's own
   * `timeoutMs` capped by limits.tool_timeout. `cancel` (the run's) aborts the call at once.
   */
  async execute(
    run: Run,
    tool: Tool,
    args: Record<string, unknown>,
    call: PlannedCall,
    cancel?: AbortSignal,
  ): Promise<CallOutcome> {
    const { clock, logger } = this.options;
    const gate = await passCallGate(tool, this.options);
    if (!gate.open) return gate.refusal;
    const timeoutMs = Math.min(tool.timeoutMs ?? Number.POSITIVE_INFINITY, this.options.toolTimeoutMs);
    const started = clock.now();
    const scope = new CallScope(() => logger.child({ runId: run.id, tool: tool.name, callId: call.id }));
    const context: ToolContext = {
      get signal() {
        return scope.signal;
      },
      // On the real clock, as the timer that enforces it runs on real time.
      deadline: Date.now() + timeoutMs,
      timeoutMs,
      get logger() {
        return scope.logger;
      },
      principal: run.principal,
      conversation: run.conversation,
      runId: run.id,
    };
    try {
      const settlement = await settleWithinDeadline(
        new Promise<unknown>((resolve) => resolve(tool.execute(context, args))),
        { timeoutMs, cancel, abort: (reason) => scope.end(() => reason) },
      );
      return await settledCallOutcome({
        tool,
        args,
        settlement,
        durationMs: clock.now() - started,
        breaker: gate.breaker,
        scope,
        redactor: this.options.redactor,
        toolOutputChars: this.options.toolOutputChars,
      });
    } finally {
      scope.end(() => new Error('call finished'));
    }
  }

  /** A call's arguments as the record, the trace and chat show them (policy/secret-arguments.ts), by tool name. */
  shownArguments(toolName: string, args: unknown): unknown {
    return shownArguments(this.options.registry.get(toolName), args, this.options.redactor);
  }
}

export { callSignature } from './call-signature.js';
