// Runs that waited for an approval when opsbot was upgraded to run schema v4: stored as v3, with their record in
// the approval book, they load, get what the book held copied in at start, and can be approved after the upgrade.
import { afterEach, describe, expect, it } from 'vitest';
import { loadRunRecord } from '../../agent/run-migrations.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { runTask } from '../kernel/harness.js';
import { ManualTimers } from '../manual-timers.js';
import { type ApprovalHarness, createApprovalHarness } from './approval-harness.js';

let h: ApprovalHarness;
afterEach(async () => h?.close());

describe('an approval pending across the upgrade to v4', () => {
  it.each(['sqlite', 'memory'] as const)(
    'is copied into its v3 run at start, and approved after (%s)',
    async (backend) => {
      h = await createApprovalHarness(backend);
      const alice = h.person('alice');
      h.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
      const waiting = await runTask(h.kernel, {
        text: 'restart the api',
        principal: alice,
        conversation: { platform: 'playground', channelId: 'ops', threadId: 't1' },
      });
      expect(waiting.status).toBe('waiting_for_approval');
      if (waiting.status !== 'waiting_for_approval') return;
      // The run as v3 stored it, with an approval id of the old form that names no run, and no binding,
      // approvers, reason or shown arguments: those were in the book's record, beside it.
      const store = h.stores[0]!;
      const { bindingHash, approvers, reason, displayArgs, ...v3approval } = waiting.approval;
      expect(bindingHash).toMatch(/^[0-9a-f]{64}$/);
      const oldId = 'apv_AbCdEfGhIjKlMnOpQrStUv';
      await store.set(`run:${waiting.id}`, {
        ...waiting,
        schemaVersion: 3,
        approval: { ...v3approval, approvalId: oldId },
      });
      await store.set(`approval:${oldId}`, {
        schemaVersion: 1,
        id: oldId,
        runId: waiting.id,
        status: 'pending',
        bindingHash,
        approvers,
        reason,
        args: displayArgs,
      });
      await store.addToSet('approvals:pending', oldId);
      expect(loadRunRecord(await store.get(`run:${waiting.id}`), 'v3 run')).toMatchObject({
        schemaVersion: 4,
        approval: { approvalId: oldId },
      });

      // A fresh process starts its expiry sweep, whose first pass brings such runs up to date.
      const upgraded = await h.replica();
      // Its first pass brings such runs up to date, once.
      await upgraded.expirySweep(new ManualTimers()).sweep();
      const after = await upgraded.get(waiting.id);
      expect(after?.status === 'waiting_for_approval' && after.approval).toMatchObject({
        bindingHash,
        approvers,
        reason,
        displayArgs,
      });

      h.fake.reply(text('Restarted the api.'));
      const click = await upgraded.decideApproval(oldId, h.person('bob'), 'approve');
      expect(click.settled).toBe(true);
      const finished = await upgraded.settled(waiting.id);
      expect(finished.status).toBe('finished');
      expect(h.probe.count('restart_service')).toBe(1);
      // The old book's pending set is read once: a marker says so to every later start.
      expect(await store.members('approvals:pending')).toEqual([]);
      expect(await store.get('approvals:copied-into-runs')).toEqual({ filled: 1 });
      await upgraded.shutdown();
    },
  );
});
