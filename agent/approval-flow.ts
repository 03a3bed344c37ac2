// Suspends a run on a call that needs approval, and settles it on a click: once, bound to the exact call.

import type { ApprovalSettings } from './approval-settings.js';
import type { OutboundMessage } from './chat-port.js';
import type { Clock } from './clock.js';
import { type Approval, verifyBinding } from './policy/approval-record.js';
import { type DecideResult, decideResultMessage } from './policy/approvals.js';
import { describeApprovers } from './policy/approver-set.js';
import { type Principal, principalKey } from './principal.js';
import type { Redactor } from './redaction.js';
import type { PlannedCall, Run } from './run.js';
import type { ApprovalRequester, RunDriver } from './run-driver.js';
import type { RunNotifier } from './run-notifier.js';
import type { RunTransitions } from './run-transitions.js';
import { refusedOutcome } from './tool-errors.js';
import type { ToolRegistry } from './tool-registry.js';

export interface ApprovalClickResult {
  /** What to tell the person who clicked (an ephemeral reply on chat platforms). */
  message: string;
  /** False when the click changed nothing: refused, late, unknown. */
  settled: boolean;
  result: DecideResult;
}

interface FlowDeps {
  settings: ApprovalSettings;
  registry: ToolRegistry;
  driver: RunDriver;
  transitions: RunTransitions;
  notifier: RunNotifier;
  redactor: Redactor;
  clock: Clock;
  /** Loads the run under its lease, changes it, saves it. */
  withRun<T>(runId: string, change: (run: Run) => Promise<T>): Promise<T>;
  /** Keeps stepping a run whose lease the caller holds. */
  continueHeld(run: Run): Promise<void>;
}

export class ApprovalFlow {
  constructor(private readonly deps: FlowDeps) {}

  /** Creates the approval, suspends the run and posts the card. */
  request: ApprovalRequester = async (run, call, tool, args, approvers, ttlMs) => {
    const { book } = this.deps.settings;
    const { clock, redactor, notifier } = this.deps;
    const displayArgs = redactor.redactValue(args);
    const reason = redactor.redact(call.reason ?? '');
    const approval = await book.request({
      runId: run.id,
      step: run.step,
      callId: call.id,
      tool: tool.name,
      args,
      displayArgs,
      requester: run.principal,
      reason,
      approvers,
      ttlMs,
      conversation: run.conversation,
      ...(run.conversation.channelName ? { channelName: run.conversation.channelName } : {}),
    });
    run.status = 'waiting_for_approval';
    run.pending = {
      kind: 'approval',
      approvalId: approval.id,
      call: { ...call, args },
      requestedAt: clock.now(),
      expiresAt: approval.expiresAt,
    };
    run.events.push({
      type: 'approval_requested',
      at: clock.now(),
      step: run.step,
      approvalId: approval.id,
      tool: tool.name,
    });
    const ref = await notifier.post(run, this.card(approval));
    if (ref) run.pending.cardMessageId = ref.messageId;
    await notifier.status(run, `Waiting for approval of ${tool.name}`, 'warning');
    await this.deps.transitions.traceStep(run, {
      kind: 'approval',
      tool: tool.name,
      args: displayArgs,
      summary: 'approval requested',
      durationMs: 0,
    });
    return true;
  };

  /** Handles an Approve or Deny click from any replica; the first valid click wins. */
  async decide(
    approvalId: string,
    decider: Principal,
    decision: 'approve' | 'deny',
    reason?: string,
  ): Promise<ApprovalClickResult> {
    const { book, permissions } = this.deps.settings;
    const result = await book.decide({
      approvalId,
      decider,
      decision,
      settings: permissions,
      ...(reason ? { reason } : {}),
    });
    const message = decideResultMessage(result);
    if (result.kind === 'expired' && result.recorded) {
      await this.settleRun(result.approval, async (run) => {
        await this.updateCard(run, result.approval, {
          outcome: 'expired',
          by: 'expiry',
          at: this.deps.clock.now(),
        });
        run.events.push({
          type: 'approval_decided',
          at: this.deps.clock.now(),
          step: run.step,
          approvalId,
          decision: 'expired',
          by: 'expiry',
        });
        await this.deps.transitions.expire(
          run,
          `The approval for ${result.approval.tool} expired before anyone decided, so it was not run. Ask again if it is still needed.`,
        );
      });
      return { message, settled: true, result };
    }
    if (result.kind !== 'decided') return { message, settled: false, result };

    const approval = result.approval;
    const by = result.by.displayName;
    await this.settleRun(approval, async (run) => {
      const pending = run.pending;
      if (pending?.kind !== 'approval' || pending.approvalId !== approval.id) return;
      const bound = verifyBinding(approval, {
        runId: run.id,
        step: approval.step,
        tool: pending.call.name,
        args: pending.call.args,
        requester: run.principal,
      });
      await this.updateCard(run, approval, {
        outcome: decision === 'approve' ? 'approved' : 'denied',
        by,
        at: result.at,
        ...(reason ? { reason } : {}),
      });
      run.events.push({
        type: 'approval_decided',
        at: this.deps.clock.now(),
        step: run.step,
        approvalId,
        decision: decision === 'approve' ? 'approved' : 'denied',
        by: principalKey(decider),
        ...(reason ? { reason } : {}),
      });
      run.pending = null;
      run.status = 'running';
      if (decision === 'deny' || !bound) {
        await this.refuse(
          run,
          pending.call,
          bound
            ? `Denied by ${by}${reason ? `: ${reason}` : '.'}`
            : 'The approved call does not match the call waiting to run, so it was not run.',
        );
        return;
      }
      await this.execute(run, pending.call, approval);
    });
    return { message, settled: true, result };
  }

  private async execute(run: Run, call: PlannedCall, approval: Approval): Promise<void> {
    const tool = this.deps.registry.get(call.name);
    if (!tool || !(await this.deps.settings.book.claimExecution(approval))) {
      await this.deps.transitions.fail(
        run,
        'approval_execution',
        `${call.name} was approved, but it could not be run exactly once, so it was not run.`,
      );
      return;
    }
    // runAlone saves `executing` first and audits the execution and its outcome.
    await this.deps.driver.runAlone(run, call, tool, call.args ?? {});
    await this.deps.transitions.save(run);
    await this.deps.notifier.status(run, 'Working on it…', 'working');
    await this.deps.continueHeld(run);
  }

  private async refuse(run: Run, call: PlannedCall, message: string): Promise<void> {
    this.deps.transitions.record(run, call, refusedOutcome(call.name, 'permission_denied', message));
    run.queue = run.queue.filter((queued) => queued.id !== call.id);
    if (this.deps.settings.permissions.on_denial === 'stop') {
      await this.deps.transitions.fail(
        run,
        'denied',
        `${message} The run stopped (permissions.on_denial is stop).`,
      );
      return;
    }
    await this.deps.notifier.status(run, 'Working on it…', 'working');
    await this.deps.continueHeld(run);
  }

  private async settleRun(approval: Approval, change: (run: Run) => Promise<void>): Promise<void> {
    await this.deps.withRun(approval.runId, change);
  }

  private card(
    approval: Approval,
    decision?: Extract<OutboundMessage, { kind: 'approval' }>['decision'],
  ): OutboundMessage {
    return {
      kind: 'approval',
      runId: approval.runId,
      approvalId: approval.id,
      requester: approval.requester.displayName,
      tool: approval.tool,
      argumentsJson: JSON.stringify(approval.args, null, 2),
      reason: approval.reason,
      approvers: [describeApprovers(approval.approvers)],
      expiresAt: approval.expiresAt,
      ...(decision ? { decision } : {}),
    };
  }

  private async updateCard(
    run: Run,
    approval: Approval,
    decision: NonNullable<Extract<OutboundMessage, { kind: 'approval' }>['decision']>,
  ): Promise<void> {
    const cardId = run.pending?.kind === 'approval' ? run.pending.cardMessageId : undefined;
    if (cardId) await this.deps.notifier.update(run, cardId, this.card(approval, decision));
  }
}
