// The calls of a step: consecutive reads together (abandoned on a cancel), write and danger calls alone with
// `executing` saved first (so an approved call runs once: the run's lease and that save are its guarantee), and
// the per-run call budget (a tool's own budget is checked when the call is prepared).
import type { ApprovalNeed } from './approval-need.js';
import type { CallReviewer, ReviewResult } from './call-review/call-reviewer.js';
import type { Clock } from './clock.js';
import type { KernelLimits } from './kernel-options.js';
import type { Grant, GrantMatch } from './policy/approval-grants.js';
import { grantOfferFor } from './policy/grant-offer.js';
import { maskSecretArguments } from './policy/secret-arguments.js';
import { personKey } from './principal.js';
import type { Redactor } from './redaction.js';
import type { PlannedCall, Run } from './run.js';
import { callPreview } from './run-machine/call-preview.js';
import { type RunMachineEvent, refusedRecord, requestApproval } from './run-machine.js';
import type { RecordedOutcome } from './run-record-call.js';
import type { CallOutcome, StepExecutor } from './step-executor.js';
import type { Tool } from './tool.js';
import { callsLeft } from './tool-budgets.js';

export interface RunCallsDeps {
  executor: StepExecutor;
  /** False when no approval settings were given: a call that needs an approver is then refused. */
  approvalsEnabled: boolean;
  /** Approval grants in force: a call one covers runs without a new approval. */
  grants?: GrantLookup;
  /** The grant lengths an approver may pick (`permissions.grant_durations`); no grants are offered without. */
  grantDurationsMs?: readonly number[];
  /** Reviews a risky call before its approval is asked for (advice on the card); absent without a model. */
  reviewer?: CallReviewer;
  redactor: Redactor;
  clock: Clock;
  limits: KernelLimits;
  /** The worker's one way to change the run: the machine, under its lease. */
  apply(run: Run, event: RunMachineEvent): Promise<Run>;
}

export interface GrantLookup {
  find(match: GrantMatch): Promise<Grant | undefined>;
}

export interface ReadyCall {
  call: PlannedCall;
  tool: Tool;
  args: Record<string, unknown>;
  signature: string;
}

export class RunCalls {
  constructor(private readonly deps: RunCallsDeps) {}

  private now(): number {
    return this.deps.clock.now();
  }

  private apply(run: Run, event: RunMachineEvent): Promise<Run> {
    return this.deps.apply(run, event);
  }

  /** Runs queued calls in order: consecutive read calls together, write and danger calls alone. */
  async runQueued(start: Run, signal: AbortSignal): Promise<Run> {
    let run = start;
    // A cancel ends the batch loop: the drive loop applies it at the step boundary.
    while (run.queue.length > 0 && run.status === 'running' && !signal.aborted) {
      const call = run.queue[0]!;
      const prepared = this.deps.executor.prepare(run, call);
      switch (prepared.kind) {
        case 'finish':
          return this.apply(run, {
            type: 'finished',
            at: this.now(),
            answer: this.deps.redactor.redact(prepared.answer),
            ok: true,
          });
        case 'ask':
        case 'missing':
          return this.apply(run, {
            type: 'question_asked',
            at: this.now(),
            call,
            question: prepared.question,
            choices: prepared.choices,
            missingFields: prepared.kind === 'missing' ? prepared.fields : [],
            expiresAt: this.now() + this.deps.limits.questionTtlMs,
          });
        case 'resolved':
          // Shown with its arguments as parsed, as the call it repeats was: one call, one outcome fact.
          run = await this.record(
            run,
            prepared.args ? { ...call, args: prepared.args } : call,
            prepared.outcome,
          );
          break;
        case 'approval': {
          if (call.approved) {
            run = await this.runAlone(run, { call, ...prepared });
            break;
          }
          if (!this.withinCallBudget(run)) return this.overBudget(run);
          if (this.deps.approvalsEnabled) {
            // A call a role makes two-person is approved each time, even if a grant from before the rule covers it;
            // a Confirm is the requester's own each time, and no approver's grant stands in for it.
            const grant =
              prepared.twoPersonRoles.length === 0 && !prepared.confirm
                ? await this.grantFor(run, prepared.tool.name, prepared.args)
                : undefined;
            if (grant) {
              const approved = { approvalId: grant.approvalId, by: grant.grantedBy.displayName };
              const underGrant = {
                ...call,
                approved: { ...approved, grantId: grant.id, until: grant.until },
              };
              run = await this.runAlone(run, { ...prepared, call: underGrant });
              break;
            }
            // A role's two_person is never granted, whatever the tool says; the tool's own is, with grants: true.
            const offer =
              prepared.twoPersonRoles.length === 0 && !prepared.confirm
                ? grantOfferFor(prepared.tool, prepared.args, this.deps.grantDurationsMs, prepared.approvals)
                : undefined;
            const need = offer ? { ...prepared, grantOffer: offer } : prepared;
            const reviewed = await this.reviewOf(run, call, need, signal);
            // Cancelled during the review: no card is posted; the drive loop applies the cancel.
            if (signal.aborted) return run;
            const request = requestApproval(
              run,
              call,
              need,
              this.now(),
              this.deps.redactor,
              reviewed?.review,
            );
            return this.apply(run, reviewed?.usage ? { ...request, reviewUsage: reviewed.usage } : request);
          }
          run = await this.record(
            run,
            call,
            refusedRecord(call.name, `${call.name} needs approval, and approvals are not set up here.`),
          );
          break;
        }
        case 'ready': {
          if (!this.withinCallBudget(run)) return this.overBudget(run);
          const ready = { call, tool: prepared.tool, args: prepared.args, signature: prepared.signature };
          run =
            prepared.tool.risk === 'read'
              ? await this.runReadBatch(run, ready, signal)
              : await this.runAlone(run, ready);
          break;
        }
      }
      if (run.status === 'running') run = await this.apply(run, { type: 'step_completed', at: this.now() });
    }
    return run;
  }

  /**
   * The reviewer's advice on a call about to ask for approval, when the settings review it: the model call is
   * made here, by the worker, and its result goes into the request event the machine applies.
   */
  private async reviewOf(
    run: Run,
    call: PlannedCall,
    need: ApprovalNeed,
    signal: AbortSignal,
  ): Promise<ReviewResult | undefined> {
    const reviewer = this.deps.reviewer;
    if (!reviewer?.applies(run, need.tool)) return undefined;
    const { redactor } = this.deps;
    const preview = callPreview(need.tool, need.args, redactor);
    return reviewer.review(
      run,
      {
        tool: need.tool.name,
        risk: need.tool.risk,
        description: need.tool.description,
        displayArgs: redactor.redactValue(maskSecretArguments(need.tool, need.args)),
        reason: redactor.redact(call.reason ?? ''),
        ...(preview.willRun ? { willRun: preview.willRun } : {}),
      },
      signal,
    );
  }

  /** The live grant covering this call: the same tool, requester, channel and arguments. */
  private grantFor(run: Run, tool: string, args: Record<string, unknown>): Promise<Grant | undefined> {
    const grants = this.deps.grants;
    if (!grants) return Promise.resolve(undefined);
    return grants.find({ tool, requester: personKey(run.principal), conversation: run.conversation, args });
  }

  private record(run: Run, call: PlannedCall, outcome: CallOutcome | RecordedOutcome): Promise<Run> {
    return this.apply(run, {
      type: 'call_recorded',
      at: this.now(),
      call,
      outcome: this.shown(call, outcome),
    });
  }

  private shown(call: PlannedCall, outcome: CallOutcome | RecordedOutcome): RecordedOutcome {
    return {
      ...outcome,
      displayArgs: this.deps.executor.shownArguments(call.name, call.args ?? call.rawArguments),
    };
  }

  /** Executes a write or danger call with `executing` saved first, so a crash mid-action is never replayed. */
  private async runAlone(run: Run, { call, tool, args, signature }: ReadyCall): Promise<Run> {
    const bound = { ...call, args };
    const displayArgs = this.deps.executor.shownArguments(tool.name, args);
    const executing = await this.apply(run, {
      type: 'execution_started',
      at: this.now(),
      call: bound,
      displayArgs,
    });
    const outcome = await this.deps.executor.execute(executing, tool, args, call);
    return this.apply(executing, {
      type: 'execution_finished',
      at: this.now(),
      call: bound,
      outcome: { ...outcome, displayArgs, signature },
    });
  }

  /** Runs `first` (already prepared, at the head of the queue) together with the read calls right after it. */
  private async runReadBatch(start: Run, first: ReadyCall, signal: AbortSignal): Promise<Run> {
    const { executor, limits } = this.deps;
    const batch: ReadyCall[] = [first];
    const signatures = new Set([first.signature]);
    for (const call of start.queue.slice(1)) {
      if (start.usage.toolCalls + batch.length >= limits.maxToolCalls) break;
      const prepared = executor.prepare(start, call);
      if (prepared.kind !== 'ready' || prepared.tool.risk !== 'read') break;
      if (signatures.has(prepared.signature)) break;
      // Left for the next pass, which refuses it with its budget's words once the batch before it is recorded.
      const budget = callsLeft(start, limits.toolBudgets, prepared.tool.name);
      if (budget && budget.left <= batch.filter((ready) => ready.tool.name === prepared.tool.name).length)
        break;
      signatures.add(prepared.signature);
      batch.push({ call, tool: prepared.tool, args: prepared.args, signature: prepared.signature });
    }
    // Reads are safe to abandon: a cancel aborts them at once, without waiting for a slow check to time out.
    // Their results are dropped.
    const results = Promise.all(
      batch.map(({ call, tool, args }) => executor.execute(start, tool, args, call, signal)),
    );
    const cancelled = whenAborted(signal);
    const outcomes = await Promise.race([results, cancelled.promise]).finally(cancelled.dispose);
    if (!outcomes) return start;
    let run = start;
    for (const [index, { call, args, signature }] of batch.entries())
      run = await this.record(run, { ...call, args }, { ...outcomes[index]!, signature });
    return run;
  }

  private withinCallBudget(run: Run): boolean {
    return run.usage.toolCalls < this.deps.limits.maxToolCalls;
  }

  private overBudget(run: Run): Promise<Run> {
    const { maxToolCalls } = this.deps.limits;
    return this.apply(run, {
      type: 'failed',
      at: this.now(),
      code: 'max_tool_calls',
      message: `Stopped: the run reached its budget of ${maxToolCalls} tool calls (limits.max_tool_calls) without finishing.`,
    });
  }
}

/** Resolves (with nothing) when the signal aborts; dispose() removes the listener when it did not. */
function whenAborted(signal: AbortSignal): { promise: Promise<undefined>; dispose: () => void } {
  let onAbort = () => {};
  const promise = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}
