// After an approved action runs, the thread shows its real outcome from the bot, whatever the model says next.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../../agent/logger.js';
import { RUN_SCHEMA_VERSION } from '../../agent/run.js';
import { loadRunRecord } from '../../agent/run-migrations.js';
import { defineTool } from '../../agent/tool.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { Router } from '../../bot/router/router.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { runTask, type TestRun } from '../kernel/harness.js';
import { type ApprovalHarness, createApprovalHarness, permissions } from './approval-harness.js';

let harness: ApprovalHarness;
afterEach(async () => harness?.close());

const conversation = { platform: 'playground' as const, channelId: 'ops', threadId: 'th1' };

/** A danger tool whose command exits 1, as `systemctl restart` does for a unit that will not start. */
const restartUnit = defineTool({
  name: 'restart_unit',
  description: 'Restart a systemd unit. Use when a unit is stuck. Do not use to deploy.',
  input: z.object({ unit: z.string().describe('The unit to restart') }),
  risk: 'danger',
  execute: async (_ctx, input) => ({
    ok: false,
    summary: `systemctl restart ${input.unit} exited 1: Job for ${input.unit} failed`,
    data: { exitCode: 1 },
  }),
});

async function approvedRestart(modelSaysAfterwards: string): Promise<TestRun> {
  harness = await createApprovalHarness('sqlite', {}, { tools: [restartUnit] });
  harness.fake.reply(toolCalls([{ name: 'restart_unit', arguments: { unit: 'api' } }]));
  const waiting = await runTask(harness.kernel, {
    text: 'restart the api',
    principal: harness.person('alice'),
    conversation,
  });
  const card = harness.chat.ofKind('approval')[0]!;
  harness.fake.reply(text(modelSaysAfterwards));
  await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'approve');
  return (await harness.kernel.settled(waiting.id)) as TestRun;
}

describe('the outcome of an approved action', () => {
  it('is posted by the bot as a failed result card, and the run ends "Done, with a problem"', async () => {
    const run = await approvedRestart('The api was restarted successfully.');
    const results = harness.chat.ofKind('result');
    expect(results[0]).toMatchObject({
      ok: false,
      text: 'restart_unit (approved by Bob) failed: systemctl restart api exited 1: Job for api failed',
    });
    // The model's words are still shown, after the bot's own card, and marked as a problem.
    // The model's words are not the outcome: its card is not the one that says Failed, the action's card is.
    expect(results.at(-1)).toMatchObject({ text: 'The api was restarted successfully.', ok: true });
    expect(results.filter((result) => !result.ok)).toHaveLength(1);
    expect(harness.chat.ofKind('status').at(-1)).toMatchObject({
      text: 'Done, with a problem',
      tone: 'warning',
    });
    expect(run.status).toBe('finished');
    expect(run.ok).toBe(false);
    expect(run.failedActions).toEqual([
      expect.objectContaining({ tool: 'restart_unit', summary: expect.stringContaining('exited 1') }),
    ]);
    // Stored, and read back through the schema by a new process.
    const stored = await (await harness.replica()).get(run.id);
    expect(stored.status === 'finished' && stored.ok).toBe(false);
    expect(stored.failedActions).toHaveLength(1);
    // `/ops status <run>` says it the same way.
    const router = new Router({
      kernel: harness.kernel,
      settings: SettingsSchema.parse({ permissions }),
      logger: silentLogger,
      clock: harness.clock,
    });
    const reply = await router.handle({
      kind: 'command',
      eventId: 'status-1',
      principal: harness.person('alice'),
      conversation,
      text: `status ${run.id}`,
    });
    expect(reply.ephemeral).toContain(`\`${run.id}\` is done, with a problem`);
  });

  it('is posted as a succeeded card too, and a clean run stays "Done"', async () => {
    harness = await createApprovalHarness('memory');
    harness.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    const waiting = await runTask(harness.kernel, {
      text: 'restart the api',
      principal: harness.person('alice'),
      conversation,
    });
    harness.fake.reply(text('Restarted.'));
    const card = harness.chat.ofKind('approval')[0]!;
    await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'approve');
    const run = (await harness.kernel.settled(waiting.id)) as TestRun;
    expect(harness.chat.ofKind('result').map((result) => [result.text, result.ok])).toEqual([
      ['restart_service (approved by Bob) succeeded: restarted api', true],
      ['Restarted.', true],
    ]);
    expect(harness.chat.ofKind('status').at(-1)).toMatchObject({ text: 'Done', tone: 'success' });
    expect(run.ok).toBe(true);
    expect(run.failedActions).toEqual([]);
  });

  it('loads a run stored before the flag existed (v2) with no failed actions', () => {
    const raw = { ...sampleV2(), status: 'finished', answer: 'ok', ok: true };
    const run = loadRunRecord(raw, 'fixture');
    expect(run.schemaVersion).toBe(RUN_SCHEMA_VERSION);
    expect(run.failedActions).toEqual([]);
  });
});

function sampleV2() {
  return {
    schemaVersion: 2,
    id: 'run_old',
    engine: 'react',
    principal: { platform: 'cli', userId: 'alice', displayName: 'Alice', roles: [], groups: [] },
    conversation: { platform: 'cli', channelId: 'terminal' },
    task: 'old',
    createdAt: 1,
    updatedAt: 2,
    step: 1,
    usage: { modelCalls: 1, toolCalls: 0, promptTokens: 1, completionTokens: 1 },
    messages: [],
    queue: [],
    completedCalls: {},
    activeMs: 0,
    events: [],
  };
}
