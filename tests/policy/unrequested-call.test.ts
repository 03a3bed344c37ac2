// A write the person did not ask for: the task names neither the tool nor an alias, and the run read outside
// data first. Such a call is a Confirm, which only the requester may decide.
import { describe, expect, it } from 'vitest';
import { refusalReason } from '../../agent/policy/approval-outcomes.js';
import type { Approval } from '../../agent/policy/approval-record.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import {
  canConfirm,
  isUnrequestedCall,
  requesterOnly,
  UNCONFIRMABLE_REFUSAL,
} from '../../agent/policy/unrequested-call.js';
import type { Principal } from '../../agent/principal.js';
import type { RunEvent } from '../../agent/run.js';

const readLogs: RunEvent = {
  type: 'tool_result',
  at: 1,
  step: 1,
  callId: 'c1',
  tool: 'read_logs',
  ok: true,
  summary: '3 lines',
  durationMs: 1,
  repeated: false,
  ran: true,
};
const writeNote = { name: 'write_note', risk: 'write' as const };
const ask = (task: string, events: RunEvent[] = [readLogs], aliases: Record<string, string> = {}) =>
  isUnrequestedCall({ tool: writeNote, task, events, aliases });

describe('isUnrequestedCall', () => {
  it('is a write after a read that the task never names', () => {
    expect(ask('search the api logs for errors')).toBe(true);
  });

  it('is not one the task names, by the tool, its words, or an alias', () => {
    expect(ask('read logs then write_note the result')).toBe(false);
    expect(ask('read logs then Write Note the result')).toBe(false);
    expect(ask('read logs and jot it down', [readLogs], { jot: 'write_note text=x' })).toBe(false);
  });

  it("counts the person's answers to the run's questions as their words", () => {
    const answered: RunEvent = {
      type: 'answer_received',
      at: 2,
      step: 1,
      answer: 'yes, write_note it',
      by: 'slack:UALICE',
    };
    expect(ask('search the logs', [readLogs, answered])).toBe(false);
  });

  it('needs a whole word: a longer name or another tool alias does not count', () => {
    expect(ask('run write_notes')).toBe(true);
    expect(ask('jot it down', [readLogs], { jot: 'write_notes' })).toBe(true);
  });

  it('is not one before any tool has run, nor a read', () => {
    expect(ask('remember the deploy is at noon', [])).toBe(false);
    expect(ask('remember', [{ ...readLogs, ran: false }])).toBe(false);
    expect(
      isUnrequestedCall({
        tool: { name: 'read_logs', risk: 'read' },
        task: 'x',
        events: [readLogs],
        aliases: {},
      }),
    ).toBe(false);
  });
});

describe('who may decide a Confirm', () => {
  const settings = PermissionSettingsSchema.parse({
    roles: { admin: { tools: ['*'], approve: ['*'], admin: true } },
    identities: { 'slack:UDAVE': { roles: ['admin'] } },
  });
  const person = (userId: string, displayName: string): Principal => ({
    platform: 'slack',
    userId,
    displayName,
    roles: [],
    groups: [],
  });
  const alice = person('UALICE', 'Alice');
  const confirm: Approval = {
    id: 'apv_abcdef_run_1',
    runId: 'run_1',
    step: 1,
    callId: 'c2',
    tool: 'write_note',
    args: {},
    requester: alice,
    reason: '',
    approvers: requesterOnly(alice),
    conversation: { platform: 'slack', channelId: 'C1', threadId: 't1' },
    createdAt: 0,
    expiresAt: 1,
    status: 'pending',
    confirm: true,
  };

  it('is the requester, without any role and without allow_self_approval', () => {
    expect(refusalReason(confirm, alice, 'approve', settings)).toBeUndefined();
    expect(refusalReason(confirm, alice, 'deny', settings)).toBeUndefined();
  });

  it('is nobody else, an admin who may approve everything included', () => {
    expect(refusalReason(confirm, person('UDAVE', 'Dave'), 'approve', settings)).toContain(
      'Only Alice, who asked for this run, can confirm or deny this',
    );
    expect(refusalReason(confirm, person('UDAVE', 'Dave'), 'deny', settings)).toContain('Only Alice');
  });

  it('is on by default in the settings', () => {
    expect(settings.confirm_unrequested_writes).toBe(true);
  });
});

describe('who can confirm at all', () => {
  it('is a person: not an alert investigation or a patrol, which have nobody to click', () => {
    expect(canConfirm({ platform: 'slack' })).toBe(true);
    expect(canConfirm({ platform: 'cli' })).toBe(true);
    expect(canConfirm({ platform: 'alert' })).toBe(false);
    expect(canConfirm({ platform: 'patrol' })).toBe(false);
    expect(UNCONFIRMABLE_REFUSAL('alertmanager_silence', 'alert:opsbot')).toMatch(
      /^nobody asked for alertmanager_silence: .* alert:opsbot is not a person who can confirm it/,
    );
  });
});
