// A run that is not getting anywhere asks its requester, through the real kernel and model client: the question
// survives a restart, "keep going" hands the model a valid tool result, and "stop here" gets an answer without tools.
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { alice, answerRun, conversation, createHarness, type Harness, runTask } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

const sameCheck = () => toolCalls([{ name: 'check_http', arguments: { url: 'https://api.example' } }]);

describe('a stuck run', () => {
  it('asks instead of spending its steps, and "keep going" reaches the model as the answer to its ask', async () => {
    harness = await createHarness({ store: 'sqlite' });
    harness.fake.reply(sameCheck(), sameCheck(), sameCheck());
    const waiting = await runTask(harness.kernel, { text: 'watch the api', principal: alice, conversation });

    expect(waiting.status).toBe('waiting_for_user');
    expect(harness.probe.count('check_http')).toBe(1);
    // Three model turns, and no fourth: the run asked before spending another.
    expect(harness.fake.requests).toHaveLength(3);
    const [question] = harness.chat.ofKind('question');
    expect(question).toMatchObject({ choices: ['keep going', 'stop here'] });
    expect(question!.question).toMatch(
      /^I'm not getting anywhere: the model asked for the same call again \(check_http\)/,
    );
    expect(waiting.events.filter((event) => event.type === 'stuck')).toHaveLength(1);

    // Another process takes the answer, as after a restart.
    harness.fake.reply(
      toolCalls([{ name: 'read_logs', arguments: { service: 'api' } }]),
      text('The api logs look fine.'),
    );
    const finished = await answerRun(harness.newKernel(), waiting.id, 'keep going', alice);
    expect(finished.status).toBe('finished');
    expect(finished.status === 'finished' && finished.answer).toBe('The api logs look fine.');
    const messages = harness.fake.requests[3]!.body.messages!;
    // The kernel's ask is in the transcript as a call, and the answer as its result: a request the API accepts.
    const asked = messages.find(
      (message) => message.role === 'assistant' && JSON.stringify(message).includes('"ask_user"'),
    ) as { tool_calls?: { id: string }[] } | undefined;
    const id = asked?.tool_calls?.[0]?.id;
    expect(id).toBe('stuck_4');
    const result = messages.find(
      (message) => message.role === 'tool' && (message as { tool_call_id?: string }).tool_call_id === id,
    );
    expect(JSON.parse(result!.content as string)).toMatchObject({ answer: 'keep going' });
  });

  it('"stop here" gets one last turn, offered no tools, and its answer says the requester stopped it', async () => {
    harness = await createHarness();
    harness.fake.reply(sameCheck(), sameCheck(), sameCheck());
    const waiting = await runTask(harness.kernel, { text: 'watch the api', principal: alice, conversation });
    harness.fake.reply(text('The api answered 200 every time.'));
    const finished = await answerRun(harness.kernel, waiting.id, 'stop here', alice);

    expect(finished.status).toBe('finished');
    const last = harness.fake.requests.at(-1)!.body;
    expect(last.tools ?? []).toEqual([]);
    expect(JSON.stringify(last.messages)).toContain('The requester asked you to stop here.');
    if (finished.status !== 'finished') return;
    expect(finished.answer).toMatch(
      /^The api answered 200 every time\.\n\nNote: stopped here, as Alice asked/,
    );
    // Stopping on request is not a problem in itself: the check passed.
    expect(finished.ok).toBe(true);
  });
});
