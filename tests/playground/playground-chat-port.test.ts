// The playground ChatPort passes the shared ChatPort contract, as rendered by the page's own renderer.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import type { Conversation } from '../../agent/conversation.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { PlaygroundChatPort } from '../../bot/playground/playground-chat-port.js';
import { DEFAULT_CHANNEL, PlaygroundStore } from '../../bot/playground/playground-store.js';
import { runChatPortContract } from '../chat-port-contract.js';
import { reviewedApprovalCard, sampleApprovalCard, sampleQuestion } from '../fixtures/outbound-messages.js';
import { inspectRendered } from './rendered-message.js';

runChatPortContract('playground', async () => {
  const store = new MemoryStore();
  const playground = new PlaygroundStore(store);
  await playground.ensureChannel(DEFAULT_CHANNEL);
  const port = new PlaygroundChatPort(playground, 'opsbot');
  const channel: Conversation = { platform: 'playground', channelId: DEFAULT_CHANNEL, channelName: 'ops' };
  const startedAt = Date.now();
  // The contract's cards expire at 12:15 that day; the page is read as Slack's is, at noon.
  const readAt = Date.UTC(2026, 0, 1, 12, 0);
  return {
    port,
    channel,
    async inspect(ref) {
      const message = await playground.message(ref.messageId);
      if (!message) throw new Error(`no message ${ref.messageId}`);
      return inspectRendered(message, [], readAt);
    },
    async messages(conversation) {
      const history = await playground.history(conversation.channelId);
      return history
        .filter((message) => message.createdAt >= startedAt && message.threadId === conversation.threadId)
        .map((message) => inspectRendered(message, [], readAt));
    },
    close: () => store.close(),
  };
});

describe('playground store', () => {
  it('keeps history in the Store and replays changes after a sequence number', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const first = new PlaygroundStore(store, clock);
    await first.ensureChannel('ops');
    const port = new PlaygroundChatPort(first, 'opsbot');
    const conversation: Conversation = { platform: 'playground', channelId: 'ops' };
    const ref = await port.post(conversation, { kind: 'text', text: 'one' });
    const cursor = first.cursor;
    await port.post(conversation, { kind: 'text', text: 'two' });
    await port.update(ref, { kind: 'text', text: 'one, edited' });

    // A reconnect gets only what changed after its cursor, each message at its newest.
    const changes = await first.changesSince(cursor);
    expect(changes?.map((change) => change.type === 'message' && change.message.content)).toEqual([
      { kind: 'text', text: 'two' },
      { kind: 'text', text: 'one, edited' },
    ]);
    // A new process sees the same history; it never saw those changes, so a reconnect is told to reload.
    // The next process starts later: never in the millisecond the first one made its changes.
    clock.advance(1_000);
    const second = new PlaygroundStore(store, clock);
    const history = await second.history('ops');
    expect(history.map((message) => message.content)).toEqual([
      { kind: 'text', text: 'one, edited' },
      { kind: 'text', text: 'two' },
    ]);
    expect(await second.changesSince(cursor)).toBeUndefined();
  });

  it('creates a channel the first time a run posts to it, and refuses other platforms', async () => {
    const playground = new PlaygroundStore(new MemoryStore());
    const port = new PlaygroundChatPort(playground, 'opsbot');
    await port.post({ platform: 'playground', channelId: 'patrols' }, { kind: 'text', text: 'report' });
    expect((await playground.channels()).map((channel) => channel.name)).toEqual(['patrols']);
    await expect(
      port.post({ platform: 'slack', channelId: 'C1' }, { kind: 'text', text: 'x' }),
    ).rejects.toThrow(/cannot post to a slack conversation/);
  });

  it('reads a question an older playground marked answered on its record as answered, without buttons', async () => {
    const store = new MemoryStore();
    const playground = new PlaygroundStore(store);
    await playground.ensureChannel('ops');
    const port = new PlaygroundChatPort(playground, 'opsbot');
    const question = sampleQuestion;
    const ref = await port.post({ platform: 'playground', channelId: 'ops' }, question);
    const key = `playground:message:${ref.messageId}`;
    await store.set(key, {
      ...((await store.get(key)) as object),
      answered: { by: 'Alice', value: 'prod', at: 1 },
    });
    const message = (await playground.message(ref.messageId))!;
    expect(message.content).toEqual({ ...question, answered: { by: 'Alice', answer: 'prod', at: 1 } });
    const shown = inspectRendered(message);
    expect(shown.buttons).toEqual([]);
    expect(shown.text).toContain('Answered by Alice: prod');
  });

  it("shows the reviewer's verdict on an approval card, a contradicted one marked as a warning", async () => {
    const playground = new PlaygroundStore(new MemoryStore());
    await playground.ensureChannel('ops');
    const port = new PlaygroundChatPort(playground, 'opsbot');
    const shown = async (card: typeof sampleApprovalCard) => {
      const ref = await port.post({ platform: 'playground', channelId: 'ops' }, card);
      return inspectRendered(
        (await playground.message(ref.messageId))!,
        [],
        sampleApprovalCard.expiresAt - 60_000,
      );
    };
    const supported = await shown(reviewedApprovalCard('supported'));
    expect(supported.text).toContain('supported: the health check failed 3 times; the log shows OOM kills');
    expect(supported.text).not.toContain('⚠️');
    const contradicted = await shown(reviewedApprovalCard('contradicted'));
    expect(contradicted.text).toContain('⚠️ Reviewer (advice, not an approval)');
    expect(contradicted.text).toContain('⚠️ contradicted: the health check failed 3 times');
    expect(contradicted.buttons).toEqual(['Approve', 'Deny', 'Cancel run']);
    expect((await shown(sampleApprovalCard)).text).not.toContain('Reviewer');
  });
});
