// Asking the person mid-run: ask_user, missing-argument questions, who may answer, and expiry.
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import {
  alice,
  answerRun,
  bob,
  conversation,
  createHarness,
  type Harness,
  noAdminPolicy,
  runTask,
} from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

describe('asking the user', () => {
  it('suspends on ask_user, and a NEW kernel over the same SQLite file resumes and finishes it', async () => {
    harness = await createHarness({ store: 'sqlite' });
    harness.fake.reply(
      toolCalls([
        { name: 'ask_user', arguments: { question: 'Which environment?', choices: ['staging', 'prod'] } },
      ]),
    );
    const waiting = await runTask(harness.kernel, { text: 'check the api', principal: alice, conversation });
    expect(waiting.status).toBe('waiting_for_user');
    expect(harness.chat.ofKind('question')[0]).toMatchObject({
      question: 'Which environment?',
      choices: ['staging', 'prod'],
    });

    const restarted = harness.newKernel();
    harness.fake.reply(
      toolCalls([{ name: 'check_http', arguments: { url: 'https://staging.example' } }]),
      text('staging is up'),
    );
    const finished = await answerRun(restarted, waiting.id, 'staging', alice);

    expect(finished.status).toBe('finished');
    expect(finished.answer).toBe('staging is up');
    const afterAnswer = harness.fake.requests[1]!.body.messages!;
    const answerMessage = afterAnswer.find((message) => message.role === 'tool')!;
    expect(JSON.parse(answerMessage.content as string)).toMatchObject({ answer: 'staging' });
    expect(finished.events.map((event) => event.type)).toEqual(
      expect.arrayContaining([
        'task_received',
        'model_turn',
        'question_asked',
        'answer_received',
        'tool_call',
        'tool_result',
        'finished',
      ]),
    );
  });

  it('asks for exactly the missing required fields without a model call, then runs the call', async () => {
    harness = await createHarness();
    harness.fake.reply(toolCalls([{ name: 'restart_service', arguments: {} }]));
    const waiting = await runTask(harness.kernel, { text: 'restart it', principal: alice, conversation });
    expect(waiting.status).toBe('waiting_for_user');
    const question = harness.chat.ofKind('question')[0]!;
    expect(question.question).toBe('Which service should I restart? (one of: api, worker)');
    expect(question.choices).toEqual(['api', 'worker']);
    expect(harness.fake.requests).toHaveLength(1);

    harness.fake.reply(text('restarted api'));
    const finished = await answerRun(harness.kernel, waiting.id, 'api', alice);
    expect(finished.status).toBe('finished');
    expect(harness.probe.calls).toEqual([{ tool: 'restart_service', args: { service: 'api' } }]);
    expect(harness.fake.requests).toHaveLength(2);
    expect(harness.chat.ofKind('question')[0]).toMatchObject({ answered: { by: 'Alice', answer: 'api' } });
  });

  it('asks again when the answer does not fit the field', async () => {
    harness = await createHarness();
    harness.fake.reply(toolCalls([{ name: 'restart_service', arguments: {} }]));
    const waiting = await runTask(harness.kernel, { text: 'restart it', principal: alice, conversation });
    const again = await answerRun(harness.kernel, waiting.id, 'database', alice);
    expect(again.status).toBe('waiting_for_user');
    expect(harness.chat.ofKind('question').at(-1)!.question).toContain('does not fit');
    expect(harness.probe.calls).toHaveLength(0);
  });

  it('lets only the requester (or an admin) answer', async () => {
    harness = await createHarness({
      kernel: {
        policy: noAdminPolicy,
      },
    });
    harness.fake.reply(toolCalls([{ name: 'ask_user', arguments: { question: 'Which host?' } }]));
    const waiting = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    await expect(harness.kernel.answer(waiting.id, 'db1', bob)).rejects.toThrow(/Only Alice/);
    expect((await harness.kernel.get(waiting.id)).status).toBe('waiting_for_user');
  });

  it('expires a question that waited too long, with a clear message, checked on answer and by the sweeper', async () => {
    harness = await createHarness({ kernel: { limits: { questionTtlMs: 60_000, toolTimeoutMs: 200 } } });
    harness.fake.reply(
      toolCalls([{ name: 'ask_user', arguments: { question: 'Which host?' } }]),
      toolCalls([{ name: 'ask_user', arguments: { question: 'Which port?' } }]),
    );
    const first = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    const second = await runTask(harness.kernel, {
      text: 'check port',
      principal: alice,
      conversation: { ...conversation, threadId: 't9' },
    });
    harness.clock.advance(60_000);

    const answered = await answerRun(harness.kernel, first.id, 'db1', alice);
    expect(answered.status).toBe('expired');
    expect(await harness.kernel.expirySweep().sweep()).toBe(1);
    expect((await harness.kernel.get(second.id)).status).toBe('expired');
    expect(harness.chat.texts().filter((line) => line.includes('expired unanswered'))).toHaveLength(2);
  });
});
