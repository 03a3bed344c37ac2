// The audit log and the cards name people as people: one configured identity across surfaces, display names.
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../agent/principal.js';
import { status, text, toolCalls } from '../fakes/openai-server.js';
import { runTask } from '../kernel/harness.js';
import { type ApprovalHarness, createApprovalHarness } from './approval-harness.js';

let harness: ApprovalHarness;
afterEach(async () => harness?.close());

const conversation = { platform: 'playground' as const, channelId: 'ops', threadId: 'th1' };

function onCli(person: Principal): Principal {
  return { ...person, platform: 'cli' };
}

describe('the audit log', () => {
  it('ends every run with an outcome row, also a run the model failed', async () => {
    harness = await createApprovalHarness('sqlite');
    harness.fake.reply(status(503));
    const failed = await runTask(harness.kernel, {
      text: 'check the api',
      principal: harness.person('alice'),
      conversation,
    });
    expect(failed.status).toBe('failed');
    harness.fake.reply(text('The api is fine.'));
    const finished = await runTask(harness.kernel, {
      text: 'check the api again',
      principal: harness.person('alice'),
      conversation: { ...conversation, threadId: 'th2' },
    });
    const entries = await harness.audit().list();
    const rows = (runId: string) =>
      entries.filter((entry) => entry.runId === runId).map((entry) => [entry.kind, entry.outcome]);
    expect(rows(failed.id)).toEqual([
      ['request', undefined],
      ['outcome', 'failed'],
    ]);
    expect(rows(finished.id)).toEqual([
      ['request', undefined],
      ['outcome', 'finished'],
    ]);
    expect(entries.find((entry) => entry.runId === failed.id && entry.kind === 'outcome')?.reason).toMatch(
      /503/,
    );
  });

  it('records the configured identity for one person on two surfaces, with the surface beside it', async () => {
    harness = await createApprovalHarness('memory');
    harness.fake.reply(text('fine'), text('still fine'));
    await runTask(harness.kernel, { text: 'check', principal: harness.person('alice'), conversation });
    await runTask(harness.kernel, {
      text: 'check',
      principal: onCli(harness.person('alice')),
      conversation: { platform: 'cli', channelId: 'terminal', threadId: 'cli-1' },
    });
    const requests = (await harness.audit().list()).filter((entry) => entry.kind === 'request');
    expect(requests.map((entry) => entry.actor)).toEqual([
      { key: 'local:alice', displayName: 'Alice', surface: 'playground' },
      { key: 'local:alice', displayName: 'Alice', surface: 'cli' },
    ]);
  });
});

describe('an approval card', () => {
  it('names the approvers by their display names, not their settings keys', async () => {
    harness = await createApprovalHarness('memory');
    harness.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    await runTask(harness.kernel, { text: 'restart', principal: harness.person('alice'), conversation });
    const card = harness.chat.ofKind('approval')[0]!;
    expect(card.approvers).toEqual(['someone with the admin role (Bob, Dave)']);
    expect(card.approvers.join(' ')).not.toMatch(/local:/);
  });
});
