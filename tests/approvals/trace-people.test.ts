// The trace labels each step for what it is, and says who answered a question and who decided an approval.
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryTraceSink } from '../../agent/trace.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { runTask } from '../kernel/harness.js';
import { type ApprovalHarness, createApprovalHarness } from './approval-harness.js';

let harness: ApprovalHarness;
afterEach(async () => harness?.close());

const conversation = { platform: 'playground' as const, channelId: 'ops', threadId: 'th1' };

describe('the trace', () => {
  it('labels command-engine steps as command steps, never as model turns', async () => {
    const trace = new MemoryTraceSink();
    harness = await createApprovalHarness('memory', {}, { trace });
    const run = await runTask(harness.kernel, {
      text: 'check_http url=https://a.example',
      principal: harness.person('alice'),
      conversation,
      engine: 'command',
    });
    expect(run.status).toBe('finished');
    const kinds = trace.records.map((record) => record.kind);
    expect(kinds).toContain('command_step');
    expect(kinds).not.toContain('model_turn');
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('says who answered and who approved, by name and configured identity', async () => {
    const trace = new MemoryTraceSink();
    harness = await createApprovalHarness('memory', {}, { trace });
    harness.fake.reply(
      toolCalls([
        { name: 'ask_user', arguments: { question: 'Which service?', choices: ['api', 'worker'] } },
      ]),
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]),
      text('Restarted the api.'),
    );
    const waiting = await runTask(harness.kernel, {
      text: 'restart something',
      principal: harness.person('alice'),
      conversation,
    });
    await harness.kernel.answer(waiting.id, 'api', harness.person('alice'));
    await harness.kernel.settled(waiting.id);
    const card = harness.chat.ofKind('approval')[0]!;
    await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'approve');
    await harness.kernel.settled(waiting.id);

    const answer = trace.records.find((record) => record.kind === 'answer');
    expect(answer).toMatchObject({ summary: 'Alice answered: api', by: 'local:alice' });
    const decided = trace.records.filter((record) => record.kind === 'approval').at(-1);
    expect(decided).toMatchObject({
      tool: 'restart_service',
      summary: 'approved by Bob',
      by: 'local:bob',
      ok: true,
    });
    expect(trace.records.map((record) => record.kind)).toContain('model_turn');
  });
});
