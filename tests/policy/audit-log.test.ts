// The audit log: entries are validated, appended, listed by time, and printed safely for a terminal.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { AuditLog, auditActor } from '../../agent/policy/audit-log.js';
import { formatAuditEntries } from '../../agent/policy/audit-table.js';
import { decideToolCall } from '../../agent/policy/decide-tool-call.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { people, places, settings, tools } from './policy-fixtures.js';

function setup() {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  return { clock, store, audit: new AuditLog(store, { clock }) };
}

describe('AuditLog', () => {
  it('records entries with the clock’s time and lists them in order', async () => {
    const { audit, clock } = setup();
    await audit.record({ kind: 'request', actor: auditActor(people.operator), runId: 'run_1' });
    clock.advance(1000);
    await audit.record({
      kind: 'execution',
      actor: auditActor(people.operator),
      runId: 'run_1',
      tool: 'scale_service',
    });
    const entries = await audit.list();
    expect(entries.map((entry) => [entry.kind, entry.at])).toEqual([
      ['request', clock.now() - 1000],
      ['execution', clock.now()],
    ]);
    expect(entries[0]?.actor).toEqual({ key: 'slack:U_OPS', displayName: 'Olga Operator', surface: 'slack' });
  });

  it('lists only entries at or after `since`, and the most recent `limit`', async () => {
    const { audit, clock } = setup();
    const start = clock.now();
    for (let index = 0; index < 5; index++) {
      await audit.record({ kind: 'outcome', actor: auditActor(people.admin), outcome: `ok ${index}` });
      clock.advance(60_000);
    }
    const since = await audit.list({ since: start + 2 * 60_000 });
    expect(since.map((entry) => entry.outcome)).toEqual(['ok 2', 'ok 3', 'ok 4']);
    const latest = await audit.list({ since: start + 60_000, limit: 2 });
    expect(latest.map((entry) => entry.outcome)).toEqual(['ok 3', 'ok 4']);
  });

  it('reads across pages of a long log', async () => {
    const { audit } = setup();
    for (let index = 0; index < 1203; index++) {
      await audit.record({ kind: 'request', actor: auditActor(people.viewer), runId: `run_${index}` });
    }
    const entries = await audit.list();
    expect(entries).toHaveLength(1203);
    expect(entries.at(-1)?.runId).toBe('run_1202');
    expect((await audit.list({ limit: 3 })).map((entry) => entry.runId)).toEqual([
      'run_1200',
      'run_1201',
      'run_1202',
    ]);
  });

  it('rejects an entry of an unknown kind rather than writing it', async () => {
    const { audit, store } = setup();
    // @ts-expect-error: the kind is checked at runtime as well
    await expect(audit.record({ kind: 'whatever', actor: auditActor(people.viewer) })).rejects.toThrow();
    expect(await store.readLog('audit')).toEqual([]);
  });

  it('keeps a damaged line visible as unreadable instead of dropping it', async () => {
    const { audit, store, clock } = setup();
    await store.append('audit', { at: clock.now(), kind: 'mystery' });
    const [entry] = await audit.list();
    expect(entry).toMatchObject({ kind: 'unreadable', at: clock.now() });
  });

  it('records a forged call and its denial', async () => {
    const { audit } = setup();
    const decision = decideToolCall({
      settings,
      principal: people.viewer,
      tools,
      toolName: 'restart_service',
      ...places.ops,
    });
    expect(decision.outcome).toBe('deny');
    await audit.record({
      kind: 'refusal',
      actor: auditActor(people.viewer),
      runId: 'run_9',
      tool: 'restart_service',
      args: { target: 'prod-db' },
      conversation: places.ops.conversation,
      channelName: 'ops',
      outcome: 'deny',
      reason: decision.outcome === 'deny' ? decision.reason : '',
    });
    expect(await audit.list()).toEqual([
      expect.objectContaining({ kind: 'refusal', tool: 'restart_service', outcome: 'deny' }),
    ]);
  });
});

describe('formatAuditEntries', () => {
  it('prints a table with a header and one line per entry', async () => {
    const { audit } = setup();
    await audit.record({
      kind: 'approval_decided',
      actor: auditActor(people.admin),
      runId: 'run_1',
      tool: 'restart_service',
      args: { target: 'prod-db' },
      channelName: 'ops',
      outcome: 'approved',
    });
    const lines = formatAuditEntries(await audit.list()).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^time \(UTC\)\s+kind\s+who\s+where\s+tool\s+run\s+detail$/);
    expect(lines[1]).toContain('2026-01-01 00:00:00');
    expect(lines[1]).toContain('Ada Admin <slack:U_ADMIN>');
    expect(lines[1]).toContain('#ops');
    expect(lines[1]).toContain('approved — {"target":"prod-db"}');
  });

  it('neutralizes terminal control sequences from model or tool text', async () => {
    const { audit } = setup();
    await audit.record({
      kind: 'refusal',
      actor: auditActor(people.viewer),
      reason: 'evil \u001b[2J\u001b]0;pwned\u0007 text',
    });
    const printed = formatAuditEntries(await audit.list());
    expect(printed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(printed).toContain('evil');
  });
});
