// Approvals: who may decide, expiry at the click, single use under races, binding to the exact call.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { bindingHash, verifyBinding } from '../../agent/policy/approval-record.js';
import {
  ApprovalBook,
  type ApprovalBook as Book,
  decideResultMessage,
} from '../../agent/policy/approvals.js';
import { approverSet } from '../../agent/policy/approver-set.js';
import { AuditLog } from '../../agent/policy/audit-log.js';
import type { PermissionSettings } from '../../agent/policy/permission-settings.js';
import type { Principal } from '../../agent/principal.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { approvalRaceCases } from './approval-race.case.js';
import { people, places, settings, settingsWith } from './policy-fixtures.js';

const TTL = 15 * 60_000;

function setup() {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  const audit = new AuditLog(store, { clock });
  const book = new ApprovalBook(store, { clock, audit, sleep: async () => {} });
  return { clock, store, audit, book };
}

function requestRestart(
  book: Book,
  overrides: { requester?: Principal; tool?: string; args?: unknown } = {},
) {
  const tool = overrides.tool ?? 'restart_service';
  return book.request({
    runId: 'run_1',
    step: 2,
    callId: 'call_1',
    tool,
    args: overrides.args ?? { target: 'prod-db', token: 'xoxb-secret' },
    displayArgs: { target: 'prod-db', token: '[REDACTED]' },
    requester: overrides.requester ?? people.operator,
    reason: 'The log says the database is stuck.',
    approvers: approverSet(settings, tool, places.ops),
    ttlMs: TTL,
    conversation: places.ops.conversation,
    channelName: 'ops',
  });
}

const click = (book: Book, approvalId: string, decider: Principal, with_: PermissionSettings = settings) =>
  book.decide({ approvalId, decider, decision: 'approve', settings: with_ });

describe('requesting', () => {
  it('stores a pending, schema-checked record with a short opaque id', async () => {
    const { book, clock } = setup();
    const approval = await requestRestart(book);
    expect(approval).toMatchObject({
      status: 'pending',
      runId: 'run_1',
      step: 2,
      tool: 'restart_service',
      args: { target: 'prod-db', token: '[REDACTED]' },
      createdAt: clock.now(),
      expiresAt: clock.now() + TTL,
    });
    expect(approval.id).toMatch(/^apv_[A-Za-z0-9_-]{22}$/);
    expect(`opsbot:approval:approve:${approval.id}`.length).toBeLessThanOrEqual(100);
    expect(await book.get(approval.id)).toEqual(approval);
    expect((await book.listPending()).map((pending) => pending.id)).toEqual([approval.id]);
  });

  it('binds to the exact arguments even though it stores the redacted ones', async () => {
    const { book } = setup();
    const approval = await requestRestart(book);
    const call = { runId: 'run_1', step: 2, tool: 'restart_service', requester: people.operator };
    expect(verifyBinding(approval, { ...call, args: { token: 'xoxb-secret', target: 'prod-db' } })).toBe(
      true,
    );
    expect(verifyBinding(approval, { ...call, args: approval.args })).toBe(false);
  });

  it('refuses to load a record that does not match the schema', async () => {
    const { book, store } = setup();
    const approval = await requestRestart(book);
    await store.set(`approval:${approval.id}`, { ...approval, status: 'maybe' });
    await expect(book.get(approval.id)).rejects.toThrow(/does not match its schema/);
  });
});

describe('deciding', () => {
  it('lets an approver approve, records who and when, and audits it', async () => {
    const { book, audit, clock } = setup();
    const approval = await requestRestart(book);
    clock.advance(60_000);
    const result = await click(book, approval.id, people.admin);
    expect(result).toMatchObject({
      kind: 'decided',
      decision: 'approve',
      by: { key: 'slack:U_ADMIN', displayName: 'Ada Admin' },
      at: clock.now(),
    });
    expect(decideResultMessage(result)).toBe('Approved by Ada Admin at 2026-01-01 00:01:00 UTC.');
    expect(await book.get(approval.id)).toMatchObject({ status: 'approved', decidedAt: clock.now() });
    expect(await book.listPending()).toEqual([]);
    expect((await audit.list()).map((entry) => entry.kind)).toEqual([
      'approval_requested',
      'approval_decided',
    ]);
  });

  it('records a denial with its reason', async () => {
    const { book } = setup();
    const approval = await requestRestart(book);
    const result = await book.decide({
      approvalId: approval.id,
      decider: people.operator2,
      decision: 'deny',
      reason: 'not during the sale',
      settings,
    });
    expect(result).toMatchObject({ kind: 'decided', decision: 'deny' });
    expect(await book.get(approval.id)).toMatchObject({
      status: 'denied',
      decisionReason: 'not during the sale',
    });
  });

  it('answers a later click with "already approved by X at T"', async () => {
    const { book } = setup();
    const approval = await requestRestart(book);
    await click(book, approval.id, people.admin);
    const late = await click(book, approval.id, people.operator2);
    expect(late).toMatchObject({
      kind: 'already_decided',
      decision: 'approve',
      by: { displayName: 'Ada Admin' },
    });
    expect(decideResultMessage(late)).toBe('Already approved by Ada Admin at 2026-01-01 00:00:00 UTC.');
  });

  it('reports an unknown or malformed id as not found', async () => {
    const { book } = setup();
    const never = await click(book, 'apv_AAAAAAAAAAAAAAAAAAAAAA', people.admin);
    expect(never).toEqual({ kind: 'not_found', approvalId: 'apv_AAAAAAAAAAAAAAAAAAAAAA' });
    expect(decideResultMessage(never)).toMatch(
      /^There is no approval apv_AAAAAAAAAAAAAAAAAAAAAA\. Check the id/,
    );
    expect(decideResultMessage(never)).not.toMatch(/no longer/);
    const forged = await click(book, '../../etc/passwd', people.admin);
    expect(forged).toEqual({ kind: 'not_found', approvalId: '../../etc/passwd' });
    expect(decideResultMessage(forged)).toMatch(/^There is no approval with that id\./);
  });
});

describe('refusals', () => {
  it('refuses self-approval, audits it, and leaves the approval open for someone else', async () => {
    const { book, audit } = setup();
    const approval = await requestRestart(book);
    const self = await click(book, approval.id, people.operator);
    expect(self).toEqual({
      kind: 'refused',
      reason: 'You asked for this, so someone else has to approve it.',
    });
    expect((await book.get(approval.id))?.status).toBe('pending');
    expect(await click(book, approval.id, people.operator2)).toMatchObject({ kind: 'decided' });
    const kinds = (await audit.list()).map((entry) => entry.kind);
    expect(kinds).toEqual(['approval_requested', 'approval_refused', 'approval_decided']);
  });

  it('allows self-approval when the settings say so', async () => {
    const { book } = setup();
    const approval = await requestRestart(book);
    const selfAllowed = settingsWith({ allow_self_approval: true });
    expect(await click(book, approval.id, people.operator, selfAllowed)).toMatchObject({ kind: 'decided' });
  });

  it('lets the requester withdraw (deny) their own request', async () => {
    const { book } = setup();
    const approval = await requestRestart(book);
    const result = await book.decide({
      approvalId: approval.id,
      decider: people.operator,
      decision: 'deny',
      settings,
    });
    expect(result).toMatchObject({ kind: 'decided', decision: 'deny' });
  });

  it('refuses a non-approver politely, for approve and deny, without consuming the approval', async () => {
    const { book, audit } = setup();
    const approval = await requestRestart(book);
    const refused = await click(book, approval.id, people.viewer);
    expect(refused).toEqual({
      kind: 'refused',
      reason:
        'Sorry, only someone with the operator or admin role may approve or deny restart_service; you have viewer.',
    });
    const denied = await book.decide({
      approvalId: approval.id,
      decider: people.viewer,
      decision: 'deny',
      settings,
    });
    expect(denied.kind).toBe('refused');
    expect(await click(book, approval.id, people.patrol)).toMatchObject({ kind: 'refused' });
    expect(await click(book, approval.id, people.admin)).toMatchObject({ kind: 'decided' });
    const refusals = (await audit.list()).filter((entry) => entry.kind === 'approval_refused');
    expect(refusals.map((entry) => entry.actor.key)).toEqual([
      'slack:U_NOBODY',
      'slack:U_NOBODY',
      'patrol:nightly',
    ]);
  });

  it('uses the approver roles stored with the request and the roles the settings give now', async () => {
    const { book } = setup();
    const approval = await requestRestart(book);
    const demoted = settingsWith({ identities: { 'slack:U_OPS2': { roles: ['viewer'] } } });
    expect(await click(book, approval.id, people.operator2, demoted)).toMatchObject({ kind: 'refused' });
    expect(await click(book, approval.id, { ...people.viewer, roles: ['admin'] })).toMatchObject({
      kind: 'refused',
    });
  });
});

describe('expiry, checked at the click', () => {
  it('accepts a click one millisecond before expiry', async () => {
    const { book, clock } = setup();
    const approval = await requestRestart(book);
    clock.advance(TTL - 1);
    expect(await click(book, approval.id, people.admin)).toMatchObject({ kind: 'decided' });
  });

  it('expires at the deadline: the first click records it, later clicks see it', async () => {
    const { book, clock, audit } = setup();
    const approval = await requestRestart(book);
    clock.advance(TTL);
    const first = await click(book, approval.id, people.admin);
    expect(first).toMatchObject({ kind: 'expired', recorded: true, approval: { status: 'expired' } });
    expect(decideResultMessage(first)).toBe(
      'This approval expired at 2026-01-01 00:15:00 UTC; ask again if it is still needed.',
    );
    clock.advance(1);
    expect(await click(book, approval.id, people.operator2)).toMatchObject({
      kind: 'expired',
      recorded: false,
    });
    expect((await book.get(approval.id))?.status).toBe('expired');
    expect(await book.listPending()).toEqual([]);
    expect((await audit.list()).at(-1)).toMatchObject({
      kind: 'approval_expired',
      actor: { key: 'slack:U_ADMIN' },
    });
  });

  it('keeps a decision made in time, even when asked again after expiry', async () => {
    const { book, clock } = setup();
    const approval = await requestRestart(book);
    await click(book, approval.id, people.admin);
    clock.advance(TTL + 60_000);
    expect(await click(book, approval.id, people.operator2)).toMatchObject({ kind: 'already_decided' });
  });
});

describe('concurrent clicks', () => {
  it('Promise.all on one book: exactly one decided, the other names the winner', async () => {
    const { book } = setup();
    const approval = await requestRestart(book);
    const results = await Promise.all([
      click(book, approval.id, people.admin),
      click(book, approval.id, people.operator2),
    ]);
    expect(results.map((result) => result.kind).sort()).toEqual(['already_decided', 'decided']);
    const winner = results.find((result) => result.kind === 'decided');
    const loser = results.find((result) => result.kind === 'already_decided');
    expect(loser && 'by' in loser && loser.by.key).toBe(winner && 'by' in winner && winner.by.key);
  });

  it('the same person double-clicking still decides once', async () => {
    const { book } = setup();
    const approval = await requestRestart(book);
    const results = await Promise.all([
      click(book, approval.id, people.admin),
      click(book, approval.id, people.admin),
    ]);
    expect(results.map((result) => result.kind).sort()).toEqual(['already_decided', 'decided']);
  });

  it('a loser that reads before the winner has saved still answers from the claim', async () => {
    const clock = new ManualClock();
    let releaseSave = () => {};
    const saveHeld = new Promise<void>((resolve) => {
      releaseSave = resolve;
    });
    class SlowSaveStore extends MemoryStore {
      override async set(key: string, value: unknown, ttlMs?: number) {
        if (key.startsWith('approval:') && (value as { status: string }).status !== 'pending') await saveHeld;
        return super.set(key, value, ttlMs);
      }
    }
    const store = new SlowSaveStore(clock);
    const book = new ApprovalBook(store, { clock, sleep: async () => {} });
    const approval = await requestRestart(book);
    const winning = click(book, approval.id, people.admin);
    const losing = await click(book, approval.id, people.operator2);
    expect(losing).toEqual({
      kind: 'already_decided',
      decision: 'approve',
      by: { key: 'slack:U_ADMIN', displayName: 'slack:U_ADMIN' },
      at: clock.now(),
    });
    releaseSave();
    expect(await winning).toMatchObject({ kind: 'decided' });
  });

  describe('two ApprovalBook instances sharing one MemoryStore', () => {
    approvalRaceCases(() => {
      const clock = new ManualClock();
      const store = new MemoryStore(clock);
      return { first: store, second: store, clock };
    });
  });
});

describe('execution', () => {
  it('lets exactly one caller execute an approved call, and nobody a pending one', async () => {
    const { book } = setup();
    const pending = await requestRestart(book);
    expect(await book.claimExecution(pending)).toBe(false);
    const result = await click(book, pending.id, people.admin);
    const approved = result.kind === 'decided' ? result.approval : pending;
    expect(await book.claimExecution(approved)).toBe(true);
    expect(await book.claimExecution(approved)).toBe(false);
  });
});

describe('binding hash', () => {
  const call = {
    runId: 'run_1',
    step: 2,
    tool: 'restart_service',
    args: { target: 'prod-db', options: { force: true, wait: 30 } },
    requester: people.operator,
  };
  const base = bindingHash(call);

  it('ignores key order in the arguments', () => {
    expect(bindingHash({ ...call, args: { options: { wait: 30, force: true }, target: 'prod-db' } })).toBe(
      base,
    );
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['run', { runId: 'run_2' }],
    ['step', { step: 3 }],
    ['tool', { tool: 'restart_cache' }],
    ['argument value', { args: { target: 'prod-db2', options: { force: true, wait: 30 } } }],
    ['nested argument', { args: { target: 'prod-db', options: { force: false, wait: 30 } } }],
    ['extra argument', { args: { ...call.args, extra: null } }],
    ['requester', { requester: people.operator2 }],
    ['requester platform', { requester: { ...people.operator, platform: 'discord' as const } }],
  ])('changes with the %s', (_label, change) => {
    expect(bindingHash({ ...call, ...change })).not.toBe(base);
  });
});
