// The approval book: creates approvals and settles each exactly once, through the Store's atomic claim.
import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import type { Conversation } from '../conversation.js';
import { ErrorCode, SystemError } from '../errors.js';
import { type Principal, personKey } from '../principal.js';
import type { Store } from '../store/store.js';
import { storeKeys } from '../store/store-keys.js';
import { APPROVAL_RETENTION_MS, type DecideResult, refusalReason, settled } from './approval-outcomes.js';
import {
  APPROVAL_ID_PATTERN,
  APPROVAL_SCHEMA_VERSION,
  type Approval,
  type ApprovalDecision,
  ApprovalSchema,
  bindingHash,
  formatTime,
  newApprovalId,
} from './approval-record.js';
import type { ApproverSet } from './approver-set.js';
import { type AuditActor, type AuditKind, type AuditLog, auditActor } from './audit-log.js';
import type { PermissionSettings } from './permission-settings.js';

export interface ApprovalRequest {
  runId: string;
  step: number;
  callId: string;
  tool: string;
  /** The exact arguments, which the approval is bound to. */
  args: unknown;
  /** What the card shows and the Store keeps; pass the redacted arguments. Defaults to `args`. */
  displayArgs?: unknown;
  requester: Principal;
  reason: string;
  approvers: ApproverSet;
  ttlMs: number;
  conversation: Conversation;
  channelName?: string;
}

export { type DecideResult, decideResultMessage } from './approval-outcomes.js';

export interface DecideInput {
  /** From a button value: untrusted until it matches an approval in the Store. */
  approvalId: string;
  decider: Principal;
  decision: ApprovalDecision;
  /** The decider's note, e.g. why they denied it. */
  reason?: string;
  /** The permission settings now, so a role removed since the request no longer counts. */
  settings: PermissionSettings;
}

export interface ApprovalBookOptions {
  clock?: Clock;
  /** When given, the book records approval_requested, _decided, _refused and _expired entries. */
  audit?: AuditLog;
  /** How long a settled approval is kept, so late clicks still get "already approved by X". */
  retentionMs?: number;
  /** A click that loses the claim waits this long, at most, to read the winner's record. */
  loserReads?: { attempts: number; delayMs: number };
  sleep?: (ms: number) => Promise<void>;
}

const PENDING_SET = storeKeys.pendingApprovals;
const recordKey = storeKeys.approval;
const decisionKey = storeKeys.approvalDecision;
const executionKey = storeKeys.approvalExecution;

type ClaimOutcome = ApprovalDecision | 'expired' | 'withdrawn';

/** The claim owner carries the decision, time and decider, so a loser can answer before the record is saved. */
function encodeOwner(outcome: ClaimOutcome, at: number, key: string): string {
  return `${outcome}|${at}|${randomBytes(6).toString('base64url')}|${key}`;
}

function decodeOwner(owner: string): { outcome: ClaimOutcome; at: number; key: string } | undefined {
  const [outcome, at, , ...key] = owner.split('|');
  if (outcome !== 'approve' && outcome !== 'deny' && outcome !== 'expired' && outcome !== 'withdrawn')
    return undefined;
  return { outcome, at: Number(at), key: key.join('|') };
}

export class ApprovalBook {
  private readonly clock: Clock;
  private readonly retentionMs: number;
  private readonly loserReads: { attempts: number; delayMs: number };
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly store: Store,
    private readonly options: ApprovalBookOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.retentionMs = options.retentionMs ?? APPROVAL_RETENTION_MS;
    this.loserReads = options.loserReads ?? { attempts: 5, delayMs: 20 };
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async request(request: ApprovalRequest): Promise<Approval> {
    if (!(request.ttlMs > 0)) throw new RangeError(`approval ttlMs must be positive, got ${request.ttlMs}`);
    const now = this.clock.now();
    const approval = ApprovalSchema.parse({
      schemaVersion: APPROVAL_SCHEMA_VERSION,
      id: newApprovalId(),
      bindingHash: bindingHash(request),
      runId: request.runId,
      step: request.step,
      callId: request.callId,
      tool: request.tool,
      args: 'displayArgs' in request ? request.displayArgs : request.args,
      requester: request.requester,
      reason: request.reason,
      approvers: request.approvers,
      conversation: request.conversation,
      channelName: request.channelName,
      createdAt: now,
      expiresAt: now + request.ttlMs,
      status: 'pending',
    } satisfies Approval);
    await this.save(approval, now);
    await this.store.addToSet(PENDING_SET, approval.id);
    await this.audit('approval_requested', auditActor(request.requester), approval, { outcome: 'pending' });
    return approval;
  }

  async get(id: string): Promise<Approval | undefined> {
    if (!APPROVAL_ID_PATTERN.test(id)) return undefined;
    const raw = await this.store.get<unknown>(recordKey(id));
    if (raw === undefined) return undefined;
    const parsed = ApprovalSchema.safeParse(raw);
    if (!parsed.success) {
      throw new SystemError(ErrorCode.RunSchema, `approval ${id} in the store does not match its schema`, {
        cause: parsed.error,
      });
    }
    return parsed.data;
  }

  /** Approvals still pending, including ones past their expiry that nobody has clicked yet. */
  async listPending(): Promise<Approval[]> {
    const approvals = await Promise.all((await this.store.members(PENDING_SET)).map((id) => this.get(id)));
    return approvals.filter((approval): approval is Approval => approval?.status === 'pending');
  }

  async decide(input: DecideInput): Promise<DecideResult> {
    // A claim whose winner failed to save is released, and the approval is pending again: try once more.
    for (let attempt = 0; attempt < 3; attempt++) {
      const result = await this.tryDecide(input);
      if (result !== 'retry') return result;
    }
    throw new SystemError(ErrorCode.StoreUnavailable, `approval ${input.approvalId} could not be settled`);
  }

  /** Exactly one caller, across replicas, gets true: the one that may execute the approved call. */
  async claimExecution(approval: Approval): Promise<boolean> {
    if (approval.status !== 'approved') return false;
    const owner = randomBytes(9).toString('base64url');
    return this.store.claim(executionKey(approval.id), owner, this.keepFor(approval, this.clock.now()));
  }

  private async tryDecide(input: DecideInput): Promise<DecideResult | 'retry'> {
    const approval = await this.get(input.approvalId);
    if (!approval) return { kind: 'not_found', approvalId: input.approvalId };
    if (approval.status !== 'pending') return settled(approval);
    const now = this.clock.now();
    if (now >= approval.expiresAt) return this.expire(approval, input.decider, now);

    const refusal = refusalReason(approval, input.decider, input.decision, input.settings);
    if (refusal) {
      await this.audit('approval_refused', auditActor(input.decider), approval, {
        outcome: input.decision,
        reason: refusal,
      });
      return { kind: 'refused', reason: refusal };
    }

    const key = decisionKey(approval.id);
    const owner = encodeOwner(input.decision, now, personKey(input.decider));
    if (!(await this.store.claim(key, owner, this.keepFor(approval, now)))) return this.readWinner(approval);

    const by = auditActor(input.decider);
    const decided: Approval = {
      ...approval,
      status: input.decision === 'approve' ? 'approved' : 'denied',
      decidedBy: by,
      decidedAt: now,
      ...(input.reason === undefined ? {} : { decisionReason: input.reason }),
    };
    await this.saveOrRelease(decided, now, key, owner);
    await this.store.removeFromSet(PENDING_SET, approval.id);
    await this.audit('approval_decided', by, decided, { outcome: decided.status, reason: input.reason });
    return { kind: 'decided', approval: decided, decision: input.decision, by, at: now };
  }

  /**
   * Settles an approval nobody clicked: at its expiry (the sweep), or withdrawn when its run is cancelled.
   * The same claim as a click, so exactly one of them wins; the result says which.
   */
  async close(
    approvalId: string,
    how: { kind: 'expired' } | { kind: 'withdrawn'; by: AuditActor },
  ): Promise<DecideResult> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const approval = await this.get(approvalId);
      if (!approval) return { kind: 'not_found', approvalId };
      if (approval.status !== 'pending') return settled(approval);
      const now = this.clock.now();
      const result =
        how.kind === 'expired'
          ? now >= approval.expiresAt
            ? await this.expire(approval, undefined, now)
            : ({ kind: 'refused', reason: 'This approval has not expired yet.' } as const)
          : await this.withdraw(approval, how.by, now);
      if (result !== 'retry') return result;
    }
    throw new SystemError(ErrorCode.StoreUnavailable, `approval ${approvalId} could not be settled`);
  }

  private async withdraw(approval: Approval, by: AuditActor, now: number): Promise<DecideResult | 'retry'> {
    const key = decisionKey(approval.id);
    const owner = encodeOwner('withdrawn', now, by.displayName);
    if (!(await this.store.claim(key, owner, this.keepFor(approval, now))))
      return this.readWinner(approval, { complete: true });
    const withdrawn: Approval = { ...approval, status: 'withdrawn', decidedBy: by, decidedAt: now };
    await this.saveOrRelease(withdrawn, now, key, owner);
    await this.store.removeFromSet(PENDING_SET, approval.id);
    await this.audit('approval_decided', by, withdrawn, {
      outcome: 'withdrawn',
      reason: 'the run was cancelled',
    });
    return { kind: 'withdrawn', approval: withdrawn, by, at: now };
  }

  /** Expiry is checked at the click: the first click after it moves the approval to expired, once. */
  private async expire(
    approval: Approval,
    clicker: Principal | undefined,
    now: number,
  ): Promise<DecideResult | 'retry'> {
    const key = decisionKey(approval.id);
    const owner = encodeOwner('expired', approval.expiresAt, 'system:expiry');
    if (!(await this.store.claim(key, owner, this.keepFor(approval, now))))
      return this.readWinner(approval, { complete: !clicker });
    const expired: Approval = { ...approval, status: 'expired', decidedAt: now };
    await this.saveOrRelease(expired, now, key, owner);
    await this.store.removeFromSet(PENDING_SET, approval.id);
    const actor = clicker ? auditActor(clicker) : { key: 'system:expiry', displayName: 'expiry' };
    await this.audit('approval_expired', actor, expired, {
      outcome: 'expired',
      reason: `expired at ${formatTime(approval.expiresAt)}`,
    });
    return { kind: 'expired', approval: expired, recorded: true };
  }

  /**
   * The loser of the claim answers from the winner's record, or from the claim itself if not yet saved. When the
   * book closes an approval (`complete`: at its expiry, or when its run is cancelled), a winner that has still
   * not saved the record died between its claim and its save: the record is then written from the claim, or the
   * approval would stay pending for ever and the run waiting on it would never get its decision.
   */
  private async readWinner(
    approval: Approval,
    options: { complete?: boolean } = {},
  ): Promise<DecideResult | 'retry'> {
    for (let attempt = 0; attempt < this.loserReads.attempts; attempt++) {
      const current = await this.get(approval.id);
      if (current && current.status !== 'pending') return settled(current);
      await this.sleep(this.loserReads.delayMs);
    }
    const holder = await this.store.holder(decisionKey(approval.id));
    const winner = holder === undefined ? undefined : decodeOwner(holder);
    if (!winner) return 'retry';
    if (options.complete) return settled(await this.completeFromClaim(approval, winner));
    if (winner.outcome === 'expired') return { kind: 'expired', approval, recorded: false };
    if (winner.outcome === 'withdrawn') {
      return { kind: 'withdrawn', approval, by: { key: winner.key, displayName: winner.key }, at: winner.at };
    }
    return {
      kind: 'already_decided',
      decision: winner.outcome,
      by: { key: winner.key, displayName: winner.key },
      at: winner.at,
    };
  }

  private async completeFromClaim(
    approval: Approval,
    winner: NonNullable<ReturnType<typeof decodeOwner>>,
  ): Promise<Approval> {
    const status = {
      approve: 'approved',
      deny: 'denied',
      expired: 'expired',
      withdrawn: 'withdrawn',
    } as const;
    const completed: Approval = {
      ...approval,
      status: status[winner.outcome],
      decidedAt: winner.at,
      ...(winner.outcome === 'expired' ? {} : { decidedBy: { key: winner.key, displayName: winner.key } }),
    };
    await this.save(completed, this.clock.now());
    await this.store.removeFromSet(PENDING_SET, approval.id);
    return completed;
  }

  private keepFor(approval: Approval, now: number): number {
    return Math.max(approval.expiresAt - now, 0) + this.retentionMs;
  }

  private async save(approval: Approval, now: number): Promise<void> {
    await this.store.set(recordKey(approval.id), approval, this.keepFor(approval, now));
  }

  private async saveOrRelease(approval: Approval, now: number, key: string, owner: string): Promise<void> {
    try {
      await this.save(approval, now);
    } catch (error) {
      // Without the record the claim would block every later click; give the approval back and fail loudly.
      await this.store.release(key, owner).catch(() => false);
      throw error;
    }
  }

  private async audit(
    kind: AuditKind,
    actor: AuditActor,
    approval: Approval,
    extra: { outcome?: string; reason?: string | undefined },
  ): Promise<void> {
    await this.options.audit?.record({
      kind,
      actor,
      approvalId: approval.id,
      runId: approval.runId,
      tool: approval.tool,
      args: approval.args,
      conversation: approval.conversation,
      ...(approval.channelName === undefined ? {} : { channelName: approval.channelName }),
      ...(extra.outcome === undefined ? {} : { outcome: extra.outcome }),
      ...(extra.reason === undefined ? {} : { reason: extra.reason }),
    });
  }
}
