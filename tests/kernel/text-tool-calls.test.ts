// A model that writes its tool calls in the text (Ollama, vLLM) still gets them run, through the real openai SDK
// and the fake server; the approval gate still decides, and text that is not a call stays the answer.
import { afterEach, describe, expect, it } from 'vitest';
import { type ApprovalHarness, createApprovalHarness } from '../approvals/approval-harness.js';
import { type FakeChatMessage, text, toolCalls } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, runTask, toolMessages } from './harness.js';

let harness: Harness | undefined;
let approvals: ApprovalHarness | undefined;
afterEach(async () => {
  await harness?.close();
  await approvals?.close();
  harness = undefined;
  approvals = undefined;
});

const call = '{"name": "check_http", "arguments": {"url": "https://a.example"}}';
const formats = [
  ['a bare JSON object', call],
  ['a <tool_call> block', `Let me check that.\n<tool_call>\n${call}\n</tool_call>`],
  ['a fenced json block', `Let me check that.\n\`\`\`json\n${call}\n\`\`\``],
  [
    '"parameters" and arguments as a string',
    '{"name": "check_http", "parameters": "{\\"url\\": \\"https://a.example\\"}"}',
  ],
  ['Mistral [TOOL_CALLS] and a JSON array', `[TOOL_CALLS] [${call}]`],
  ['Mistral [TOOL_CALLS]name[ARGS]{…}', '[TOOL_CALLS]check_http[ARGS]{"url": "https://a.example"}'],
  [
    'a <think> block before a <tool_call> block',
    `<think>\nThey ask about a; I could also <tool_call>{"name": "restart_service", "arguments": {"service": "api"}}</tool_call>, no.\n</think>\nLet me check that.\n<tool_call>${call}</tool_call>`,
  ],
] as const;

describe('tool calls written as text', () => {
  it.each(formats)(
    'runs a call given as %s, and the run finishes with its result',
    async (_label, content) => {
      harness = await createHarness();
      harness.fake.reply(text(content), text('a.example is up.'));
      const run = await runTask(harness.kernel, { text: 'is a up?', principal: alice, conversation });

      expect(harness.probe.calls).toEqual([{ tool: 'check_http', args: { url: 'https://a.example' } }]);
      expect(run.status).toBe('finished');
      expect(run.answer).toBe('a.example is up.');
      // The next request carries the call as a real tool call, answered by its tool message: valid for the API.
      const messages = harness.fake.requests[1]!.body.messages!;
      const assistant = messages.find((message) => message.role === 'assistant') as FakeChatMessage;
      expect(assistant.tool_calls).toEqual([
        {
          id: 'text_call_1_1',
          type: 'function',
          function: { name: 'check_http', arguments: expect.stringContaining('https://a.example') },
        },
      ]);
      expect(assistant.content).toBe(content.includes('Let me') ? 'Let me check that.' : null);
      expect(harness.fake.requests[1]!.rawBody).not.toContain('think');
      const tool = messages.find((message) => message.role === 'tool')!;
      expect(tool.tool_call_id).toBe('text_call_1_1');
      expect(toolMessages(harness.fake.requests[1]!.body)[0]).toMatchObject({
        summary: 'https://a.example answered 200',
      });
      const turn = run.events.find((event) => event.type === 'model_turn');
      expect(turn).toMatchObject({
        textToolCalls: true,
        toolCalls: [{ id: 'text_call_1_1', name: 'check_http' }],
      });
    },
  );

  it('runs several tagged calls from one reply', async () => {
    harness = await createHarness();
    harness.fake.reply(
      text(
        '<tool_call>{"name": "check_http", "arguments": {"url": "https://a.example"}}</tool_call>\n' +
          '<tool_call>{"name": "read_logs", "arguments": {"service": "api"}}</tool_call>',
      ),
      text('done'),
    );
    const run = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(harness.probe.calls.map((made) => made.tool).sort()).toEqual(['check_http', 'read_logs']);
    expect(run.status).toBe('finished');
    const tools = harness.fake.requests[1]!.body.messages!.filter((message) => message.role === 'tool');
    expect(tools.map((message) => message.tool_call_id)).toEqual(['text_call_1_1', 'text_call_1_2']);
  });

  it('stores the text calls: another process loads the run with them and the event that says so', async () => {
    harness = await createHarness({ store: 'sqlite' });
    harness.fake.reply(text(call), text('ok'));
    const run = await runTask(harness.kernel, { text: 'is a up?', principal: alice, conversation });
    const stored = await harness.newKernel().get(run.id);
    expect(stored.messages.find((message) => message.role === 'assistant')).toMatchObject({
      content: null,
      toolCalls: [{ id: 'text_call_1_1', name: 'check_http' }],
    });
    expect(stored.events.find((event) => event.type === 'model_turn')).toMatchObject({ textToolCalls: true });
  });

  it('runs a text call with its arguments as written, while the transcript and event keep them redacted', async () => {
    harness = await createHarness();
    const secret = 'xoxb-123456789012-abcdefghijkl';
    harness.fake.reply(
      // A read: a write or danger argument that redaction would hide is refused (see secret-arguments.ts).
      text(`<tool_call>{"name": "read_logs", "arguments": {"service": "token ${secret}"}}</tool_call>`),
      text('read'),
    );
    const run = await runTask(harness.kernel, { text: 'read it', principal: alice, conversation });
    expect(harness.probe.calls).toEqual([{ tool: 'read_logs', args: { service: `token ${secret}` } }]);
    expect(harness.fake.requests[1]!.rawBody).not.toContain(secret);
    expect(JSON.stringify(run.messages)).not.toContain(secret);
    expect(JSON.stringify(run.events.filter((event) => event.type === 'model_turn'))).not.toContain(secret);
  });

  it('leaves prose that mentions JSON, and a call of a tool not offered, as the answer', async () => {
    harness = await createHarness();
    const mentions = 'The endpoint answered {"status": "ok"}, so all is well.';
    const unknown = '{"name": "delete_everything", "arguments": {}}';
    harness.fake.reply(text(mentions), text(unknown));
    const first = await runTask(harness.kernel, { text: 'status?', principal: alice, conversation });
    const second = await runTask(harness.kernel, {
      text: 'again?',
      principal: alice,
      conversation: { ...conversation, threadId: 't2' },
    });
    expect(first.answer).toBe(mentions);
    expect(second.answer).toBe(unknown);
    expect(harness.probe.calls).toEqual([]);
    expect(harness.fake.requests).toHaveLength(2);
  });

  it('sends a danger call written as text to the approval gate, like a real tool call', async () => {
    approvals = await createApprovalHarness('memory');
    approvals.fake.reply(
      text(
        'The api is stuck; a restart should clear it.\n' +
          '<tool_call>{"name": "restart_service", "arguments": {"service": "api"}}</tool_call>',
      ),
    );
    const run = await runTask(approvals.kernel, {
      text: 'restart the api',
      principal: approvals.person('alice'),
      conversation: { platform: 'playground', channelId: 'ops', threadId: 'th1', channelName: 'ops' },
    });
    expect(run.status).toBe('waiting_for_approval');
    expect(approvals.probe.count('restart_service')).toBe(0);
    expect(approvals.chat.ofKind('approval')[0]).toMatchObject({
      tool: 'restart_service',
      reason: 'The api is stuck; a restart should clear it.',
    });
  });

  it('shows only what follows a <think> block: in the answer, the transcript sent back, and the events', async () => {
    harness = await createHarness();
    const secret = 'xoxb-123456789012-abcdefghijkl';
    harness.fake.reply(
      toolCalls([{ name: 'check_http', arguments: { url: 'https://a.example' } }], {
        content: '<think>Maybe a.example is asleep.</think>\nChecking a.',
      }),
      text(`<think>\nIt answered 200, so it is up.\n</think>\n\na.example is up; its token is ${secret}.`),
      text('Still up.'),
    );
    const run = await runTask(harness.kernel, { text: 'is a up?', principal: alice, conversation });
    expect(run.status).toBe('finished');
    expect(run.answer).toMatch(/^a\.example is up; its token is \S+\.$/);
    expect(run.answer).not.toContain(secret);
    // The call's reason, its transcript entry and the events keep only the words after the thinking.
    const sent = harness.fake.requests[1]!.body.messages!;
    expect(sent.find((message) => message.role === 'assistant')?.content).toBe('Checking a.');
    const turns = run.events.filter((event) => event.type === 'model_turn');
    expect(turns.map((turn) => turn.content)).toEqual([
      'Checking a.',
      expect.stringMatching(/^a\.example is up;/),
    ]);
    const stored = JSON.stringify([run.messages, run.events]);
    expect(stored).not.toMatch(/think|asleep|so it is up/);
    expect(stored).not.toContain(secret);
    // A later run in the thread is told of this one's answer, not of its thinking.
    await runTask(harness.kernel, { text: 'and now?', principal: alice, conversation });
    expect(harness.fake.requests[2]!.rawBody).not.toMatch(/think|asleep|so it is up/);
  });

  it('says so when the reply was only thinking, closed or cut off, and runs no call written inside it', async () => {
    harness = await createHarness();
    harness.fake.reply(
      text(
        '<think>I should restart it: <tool_call>{"name": "check_http", "arguments": {"url": "https://a.example"}}</tool_call></think>',
      ),
      text('<think>Still thinking about whether'),
    );
    for (const threadId of ['t1', 't2']) {
      const run = await runTask(harness.kernel, {
        text: 'is a up?',
        principal: alice,
        conversation: { ...conversation, threadId },
      });
      expect(run.status).toBe('finished');
      expect(run.answer).toBe('The model ended without an answer: its reply was only its reasoning.');
      expect(JSON.stringify(run.messages)).not.toContain('think');
    }
    expect(harness.probe.calls).toEqual([]);
  });
});

describe('a call written as text of a tool that was not offered', () => {
  const task = (content: string) => ({
    text: content,
    principal: approvals!.person('carol'),
    conversation: { platform: 'playground' as const, channelId: 'ops', threadId: 'th1', channelName: 'ops' },
  });

  it('is refused by the policy as an unknown tool, and the model tries again with a call that runs', async () => {
    approvals = await createApprovalHarness('memory');
    approvals.fake.reply(
      text(
        'I will clean up.\n<tool_call>{"name": "delete_everything", "arguments": {"really": true}}</tool_call>',
      ),
      text('[TOOL_CALLS]__proto__[ARGS]{}'),
      text('<tool_call>{"name": "check_http", "arguments": {"url": "https://a.example"}}</tool_call>'),
      text('a.example is up.'),
    );
    const run = await runTask(approvals.kernel, task('is a up?'));
    expect(run.status).toBe('finished');
    expect(run.answer).toBe('a.example is up.');
    expect(approvals.probe.calls).toEqual([{ tool: 'check_http', args: { url: 'https://a.example' } }]);
    const results = run.events.filter((event) => event.type === 'tool_result');
    expect(results.map((event) => [event.callId, event.tool, event.ok, event.errorClass])).toEqual([
      ['text_call_1_1', 'delete_everything', false, 'refused_by_policy'],
      ['text_call_2_1', '__proto__', false, 'refused_by_policy'],
      ['text_call_3_1', 'check_http', true, undefined],
    ]);
    const [refused] = toolMessages(approvals.fake.requests[1]!.body) as { error: { message: string } }[];
    expect(refused!.error.message).toMatch(
      /^There is no tool named "delete_everything"; use only the tools you were offered\. Available tools: .*check_http/,
    );
    // The refused call is in the transcript as a real call, answered by its tool message.
    const assistant = approvals.fake.requests[1]!.body.messages!.find(
      (message) => message.role === 'assistant',
    );
    expect(assistant).toMatchObject({
      content: 'I will clean up.',
      tool_calls: [{ id: 'text_call_1_1', function: { name: 'delete_everything' } }],
    });
    const proto = toolMessages(approvals.fake.requests[2]!.body)[1] as { error: { message: string } };
    expect(proto.error.message).toContain('There is no tool named "__proto__"');
  });

  it('of a tool that exists but this person may not use is refused too, and never waits for approval', async () => {
    approvals = await createApprovalHarness('memory');
    approvals.fake.reply(
      text('<tool_call>{"name": "restart_service", "arguments": {"service": "api"}}</tool_call>'),
      text('I may not restart it.'),
    );
    const run = await runTask(approvals.kernel, task('restart the api'));
    expect(run.status).toBe('finished');
    expect(approvals.probe.count('restart_service')).toBe(0);
    expect(approvals.chat.ofKind('approval')).toEqual([]);
    const result = run.events.find((event) => event.type === 'tool_result');
    expect(result).toMatchObject({ tool: 'restart_service', ok: false, errorClass: 'permission_denied' });
  });
});
