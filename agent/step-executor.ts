// The one step executor every engine shares: validate, gate, guard and run a tool call, and shape its result.

import { ASK_USER, AskUserInput, FINISH, FinishInput } from './builtin-tools.js';
import { settleWithinDeadline } from './call-deadline.js';
import { type CallOutcome, capContent, failureOutcome, timedOutOutcome } from './call-outcome.js';
import { CallScope } from './call-scope.js';
import { callSignature } from './call-signature.js';
import type { BreakerRegistry, CircuitBreaker } from './circuit-breaker.js';
import type { Clock } from './clock.js';
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import { findMissingFields, missingFieldChoices, missingFieldsQuestion } from './missing-arguments.js';
import type { ApproverSet } from './policy/approver-set.js';
import {
  hiddenArgumentRefusal,
  maskSecretArguments,
  maskSecretValues,
  secretValuesOf,
} from './policy/secret-arguments.js';
import { confirmNeedFor } from './policy/unrequested-call.js';
import type { Redactor } from './redaction.js';
import { repeatedFailureMessage, repeatedResult } from './repeated-call.js';
import type { PlannedCall, Run } from './run.js';
import { type Tool, type ToolContext, ToolResultSchema, toolOffReason } from './tool.js';
import { budgetSpentMessage, callsLeft, type ToolBudgets } from './tool-budgets.js';
import { ToolArgumentError, type ToolErrorClass, ToolPermissionError } from './tool-errors.js';
import type { ToolPolicy } from './tool-policy.js';
import type { ToolRegistry } from './tool-registry.js';

export type { CallOutcome } from './call-outcome.js';

export type CallPreparation =
  | { kind: 'finish'; answer: string }
  | { kind: 'ask'; question: string; choices: string[] }
  | { kind: 'missing'; question: string; choices: string[]; fields: string[] }
  /** `args` as parsed (defaults filled in) when the call was checked that far: the record shows them, as it does a call that ran. */
  | { kind: 'resolved'; outcome: CallOutcome; args?: Record<string, unknown> }
  | {
      kind: 'approval';
      tool: Tool;
      args: Record<string, unknown>;
      signature: string;
      approvers: ApproverSet;
      ttlMs: number;
      approvals: 1 | 2;
      twoPersonRoles: readonly string[];
      /** A Confirm: only the requester may decide it, and it offers no grants. */
      confirm?: true;
    }
  | { kind: 'ready'; tool: Tool; args: Record<string, unknown>; signature: string };

/** What a call produced: the tool message content for the model, and a summary for people and the trace. */
export interface StepExecutorOptions {
  registry: ToolRegistry;
  policy: ToolPolicy;
  breakers: BreakerRegistry;
  redactor: Redactor;
  clock: Clock;
  logger: Logger;
  toolTimeoutMs: number;
  toolOutputChars: number;
  toolBudgets: ToolBudgets;
  /** The command engine's aliases: a task naming one of them asks for its tool. */
  aliases?: Readonly<Record<string, string>>;
}

export class StepExecutor {
  constructor(private readonly options: StepExecutorOptions) {}

  /** Everything about a call that can be decided without running it. */
  prepare(run: Run, call: PlannedCall): CallPreparation {
    if (call.args === null) {
      return this.failed(call, 'invalid_argument', call.parseError ?? 'The arguments are not a JSON object.');
    }
    if (call.name === FINISH) {
      const parsed = FinishInput.safeParse(call.args);
      if (!parsed.success) return this.failed(call, 'invalid_argument', issuesText(parsed.error.issues));
      return { kind: 'finish', answer: parsed.data.answer };
    }
    if (call.name === ASK_USER) {
      const parsed = AskUserInput.safeParse(call.args);
      if (!parsed.success) return this.failed(call, 'invalid_argument', issuesText(parsed.error.issues));
      return { kind: 'ask', question: parsed.data.question, choices: parsed.data.choices ?? [] };
    }

    const awaited = this.options.registry.awaitedReason(call.name);
    if (awaited !== undefined) return this.failed(call, 'transient', awaited);
    const decision = this.options.policy.decide(run.principal, run.conversation, call.name);
    if (decision.outcome === 'deny') {
      const errorClass = decision.code === 'unknown_tool' ? 'refused_by_policy' : 'permission_denied';
      const message =
        decision.code === 'unknown_tool'
          ? `${decision.reason} Available tools: ${this.visibleNames(run).join(', ') || 'none'}.`
          : decision.reason;
      return this.failed(call, errorClass, message);
    }
    const tool = this.options.registry.get(call.name);
    if (!tool) return this.failed(call, 'refused_by_policy', `There is no tool named "${call.name}".`);
    // Before the arguments: what is off may be its input schema, and a switched-off tool is asked nothing.
    const off = toolOffReason(tool);
    if (off !== undefined) return this.failed(call, 'refused_by_policy', off);

    const parsed = tool.input.safeParse(call.args);
    if (!parsed.success) {
      const missing = findMissingFields(parsed.error, call.args);
      const spec = this.options.registry.spec(tool.name);
      if (missing && spec) {
        return {
          kind: 'missing',
          fields: missing,
          question: missingFieldsQuestion(spec, missing),
          choices: missingFieldChoices(spec, missing),
        };
      }
      return this.failed(
        call,
        'invalid_argument',
        `Invalid arguments for ${tool.name}: ${issuesText(parsed.error.issues)}`,
      );
    }
    const args = parsed.data as Record<string, unknown>;
    // Before anything is asked or run: an approver must be able to read every argument of an action.
    const hidden = hiddenArgumentRefusal(tool, args, this.options.redactor);
    if (hidden) {
      // Refused like a rule's refusal, not like a model's slip: the thread shows it and the run ends with a problem.
      return {
        kind: 'resolved',
        outcome: this.failureOf(tool.name, 'permission_denied', hidden, 0, false),
        args,
      };
    }

    // Worked out once here: the batch and the record reuse it rather than serializing the arguments again.
    const signature = callSignature(tool.name, args);
    const earlier = run.completedCalls[signature];
    if (earlier?.failed) {
      const failure = this.failureOf(
        tool.name,
        'transient',
        repeatedFailureMessage(tool.name, earlier),
        0,
        false,
      );
      return { kind: 'resolved', outcome: { ...failure, repeated: true }, args };
    }
    if (earlier)
      return { kind: 'resolved', args, outcome: repeatedResult(earlier, this.options.clock.now()) };
    // After the repeats, which run nothing and so spend nothing; before an approval, so nobody is asked in vain.
    const budget = callsLeft(run, this.options.toolBudgets, tool.name);
    if (budget && budget.left === 0) {
      const refusal = this.failureOf(
        tool.name,
        'refused_by_policy',
        budgetSpentMessage(budget.budget),
        0,
        false,
      );
      return { kind: 'resolved', outcome: { ...refusal, budgetSpent: budget.budget }, args };
    }
    if (decision.outcome === 'needs_approval') {
      return {
        kind: 'approval',
        tool,
        args,
        signature,
        approvers: decision.approvers,
        ttlMs: decision.ttlMs,
        approvals: decision.approvals,
        twoPersonRoles: decision.twoPersonRoles,
      };
    }
    // A write the person did not ask for, about to run without an approver, waits for their own Confirm.
    const confirm = confirmNeedFor(
      this.options.policy.confirmUnrequested,
      run,
      tool,
      this.options.aliases ?? {},
    );
    if (confirm?.kind === 'refused') {
      return {
        kind: 'resolved',
        outcome: this.failureOf(tool.name, 'permission_denied', confirm.reason, 0, false),
        args,
      };
    }
    if (confirm) {
      const { kind: _confirm, ...need } = confirm;
      return { kind: 'approval', tool, args, signature, ...need };
    }
    return { kind: 'ready', tool, args, signature };
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
    const { clock, breakers, logger } = this.options;
    // Again here: an approval may have waited while the tool was switched off.
    const off = toolOffReason(tool);
    if (off !== undefined) return this.failureOf(tool.name, 'refused_by_policy', off, 0, false);
    const breaker = breakers.get(tool.name);
    if (!(await breaker.canPass())) {
      const retryAt = breaker.reopensAt();
      const wait = retryAt
        ? ` It will be tried again in ${Math.ceil((retryAt - clock.now()) / 1000)} s.`
        : '';
      return this.failureOf(
        tool.name,
        'transient',
        `${tool.name} is temporarily disabled after repeated failures.${wait}`,
        0,
        false,
      );
    }
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
      const durationMs = clock.now() - started;
      switch (settlement.kind) {
        case 'timed_out':
          await breaker.recordFailure();
          return timedOutOutcome(tool.name, settlement.timeoutMs, durationMs);
        case 'cancelled':
          return this.failureOf(tool.name, 'transient', `${tool.name} was cancelled.`, durationMs, false);
        case 'threw': {
          if (settlement.error instanceof ToolArgumentError) {
            // The model's mistake, not the tool's: the breaker is left alone, and the budget does not count it.
            return this.failureOf(tool.name, 'invalid_argument', settlement.error.message, durationMs, false);
          }
          if (settlement.error instanceof ToolPermissionError) {
            // The target works and said no: the breaker is left alone; the message is the target's, redacted.
            const denied = maskSecretValues(
              this.options.redactor.redact(settlement.error.message),
              secretValuesOf(tool, args),
            );
            return this.failureOf(tool.name, 'permission_denied', `${tool.name}: ${denied}`, durationMs);
          }
          await breaker.recordFailure();
          const message = maskSecretValues(
            this.options.redactor.redact(errorMessage(settlement.error)),
            secretValuesOf(tool, args),
          );
          scope.logger.warn({ err: message }, 'tool threw');
          return this.failureOf(tool.name, 'transient', `${tool.name} failed: ${message}`, durationMs);
        }
        case 'returned':
          return this.returned(tool.name, settlement.value, durationMs, breaker, secretValuesOf(tool, args));
      }
    } finally {
      scope.end(() => new Error('call finished'));
    }
  }

  private async returned(
    name: string,
    result: unknown,
    durationMs: number,
    breaker: CircuitBreaker,
    secrets: readonly string[],
  ): Promise<CallOutcome> {
    const checked = ToolResultSchema.safeParse(result);
    if (!checked.success) {
      await breaker.recordFailure();
      return this.failureOf(name, 'transient', `${name} returned a malformed result.`, durationMs);
    }
    await breaker.recordSuccess();
    // A declared secret is masked by its exact value too: it need not look like one to redaction.
    const redacted = maskSecretValues(this.options.redactor.redactValue(checked.data), secrets);
    const content = capContent(this.options.toolOutputChars, JSON.stringify({ tool: name, ...redacted }));
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

  /** A call's arguments as the record, the trace and chat show them: declared secrets masked, then redacted. */
  shownArguments(toolName: string, args: unknown): unknown {
    const tool = this.options.registry.get(toolName);
    const masked =
      typeof args === 'object' && args !== null && !Array.isArray(args)
        ? maskSecretArguments(tool, args as Record<string, unknown>)
        : args;
    return this.options.redactor.redactValue(masked);
  }

  private failed(call: PlannedCall, errorClass: ToolErrorClass, message: string): CallPreparation {
    return { kind: 'resolved', outcome: this.failureOf(call.name, errorClass, message, 0, false) };
  }

  private failureOf(
    tool: string,
    errorClass: ToolErrorClass,
    message: string,
    durationMs: number,
    executed = true,
  ) {
    return failureOutcome(this.options.redactor, tool, errorClass, message, durationMs, executed);
  }

  private visibleNames(run: Run): string[] {
    const tools = this.options.policy.visibleTools(
      run.principal,
      run.conversation,
      this.options.registry.available(),
    );
    return tools.map((tool) => tool.name);
  }
}

export { callSignature } from './call-signature.js';

function issuesText(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  return issues
    .map((issue) => `${issue.path.map(String).join('.') || 'arguments'}: ${issue.message}`)
    .join('; ');
}
