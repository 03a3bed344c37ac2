// One contract every ChatPort (Slack, Discord, playground) passes: what a person sees for each outbound message.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatPort, MessageRef } from '../agent/chat-port.js';
import type { Conversation } from '../agent/conversation.js';
import { sampleApprovalCard, sampleQuestion } from './fixtures/outbound-messages.js';

/** A message as the platform shows it to a person. */
export interface RenderedMessage {
  text: string;
  /** Labels of clickable buttons. */
  buttons: string[];
  /** Pings the platform would send for this message (users, groups, @channel/@here/@everyone). */
  pings: string[];
}

export interface ChatPortHarness {
  port: ChatPort;
  /** A channel with no thread yet. */
  channel: Conversation;
  /** The latest rendering of one message. */
  inspect(ref: MessageRef): Promise<RenderedMessage>;
  /** Every message in the channel or thread since the harness started, in order, as last rendered. */
  messages(conversation: Conversation): Promise<RenderedMessage[]>;
  close(): Promise<void>;
}

export function runChatPortContract(name: string, make: () => Promise<ChatPortHarness>): void {
  describe(`ChatPort contract: ${name}`, () => {
    let harness: ChatPortHarness;
    beforeEach(async () => {
      harness = await make();
    });
    afterEach(async () => harness.close());

    it('posts a top-level message whose id starts a thread, and posts into that thread', async () => {
      const root = await harness.port.post(harness.channel, {
        kind: 'text',
        text: 'Alice asked: check the api',
      });
      expect((await harness.inspect(root)).text).toContain('check the api');
      const thread = { ...harness.channel, threadId: root.messageId };
      await harness.port.post(thread, { kind: 'text', text: 'first reply in the thread' });
      const inThread = await harness.messages(thread);
      expect(inThread.some((message) => message.text.includes('first reply in the thread'))).toBe(true);
    });

    it('updates a message in place', async () => {
      const ref = await harness.port.post(harness.channel, {
        kind: 'status',
        runId: 'run_1',
        text: 'Working on it…',
        tone: 'working',
      });
      await harness.port.update(ref, { kind: 'status', runId: 'run_1', text: 'Done', tone: 'success' });
      const shown = await harness.inspect(ref);
      expect(shown.text).toContain('Done');
      expect(shown.text).not.toContain('Working on it');
    });

    it('renders question choices as buttons', async () => {
      const ref = await harness.port.post(harness.channel, sampleQuestion);
      const shown = await harness.inspect(ref);
      expect(shown.text).toContain('Which environment?');
      expect(shown.buttons).toEqual(['staging', 'prod', 'Cancel run']);
    });

    it('shows the answer on a question once answered, without buttons', async () => {
      const question = sampleQuestion;
      const ref = await harness.port.post(harness.channel, question);
      await harness.port.update(ref, {
        ...question,
        answered: { by: 'Alice', answer: 'prod', at: Date.UTC(2026, 0, 1, 12, 1) },
      });
      const shown = await harness.inspect(ref);
      expect(shown.buttons).toEqual([]);
      expect(shown.text).toContain('Which environment?');
      expect(shown.text).toContain('prod');
      expect(shown.text).toContain('Alice');
    });

    it('shows an approval card with everything an approver needs, and removes its buttons once decided', async () => {
      const card = sampleApprovalCard;
      const ref = await harness.port.post(harness.channel, card);
      const shown = await harness.inspect(ref);
      for (const part of ['Alice', 'restart_service', '"service": "api"', 'api is stuck', 'admin'])
        expect(shown.text).toContain(part);
      expect(shown.buttons).toEqual(['Approve', 'Deny', 'Cancel run']);
      await harness.port.update(ref, {
        ...card,
        decision: { outcome: 'approved', by: 'Bob', at: Date.UTC(2026, 0, 1, 12, 3) },
      });
      const decided = await harness.inspect(ref);
      expect(decided.buttons).toEqual([]);
      expect(decided.text).toMatch(/approved/i);
      expect(decided.text).toContain('Bob');
    });

    it('neutralizes pings in model and tool text', async () => {
      const ref = await harness.port.post(harness.channel, {
        kind: 'result',
        runId: 'run_1',
        ok: true,
        text: 'Hey @everyone and @here, <!channel> <!here> <!everyone> <@U0123ABCD> <@&123456789012345678> <@123456789012345678> <!subteam^S0123|oncall>',
      });
      const shown = await harness.inspect(ref);
      expect(shown.pings).toEqual([]);
      expect(shown.text).toContain('everyone');
    });

    it('delivers 6,000 characters of output whole, split to the platform limits', async () => {
      const lines = Array.from(
        { length: 121 },
        (_, index) => `line ${String(index).padStart(3, '0')} ${'x'.repeat(40)}`,
      );
      const text = lines.join('\n');
      expect(text.length).toBeGreaterThan(6000);
      const thread = {
        ...harness.channel,
        threadId: (await harness.port.post(harness.channel, { kind: 'text', text: 'root' })).messageId,
      };
      await harness.port.post(thread, { kind: 'result', runId: 'run_1', ok: true, text });
      const shown = (await harness.messages(thread)).map((message) => message.text).join('\n');
      for (const line of [lines[0]!, lines[60]!, lines[120]!]) expect(shown).toContain(line);
    });

    it('renders table results as readable rows, not a JSON dump', async () => {
      const ref = await harness.port.post(harness.channel, {
        kind: 'result',
        runId: 'run_1',
        ok: true,
        text: '/ is 71% full',
        details: [
          {
            tool: 'disk_usage',
            summary: '/ is 71% full',
            data: { disks: [{ mount: '/', used: '71 GiB', total: '100 GiB', percent: 71 }] },
          },
        ],
      });
      const shown = await harness.inspect(ref);
      expect(shown.text).toContain('71 GiB');
      expect(shown.text).not.toContain('{"mount"');
    });
  });
}
