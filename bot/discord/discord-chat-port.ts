// The kernel's ChatPort on Discord's REST API: posts into a conversation's thread (starting it from its root
// message the first time), edits cards in place, attaches long output, and never pings anyone.
import { type REST, Routes } from 'discord.js';
import { z } from 'zod';
import type { ChatPort, MessageRef, OutboundMessage } from '../../agent/chat-port.js';
import type { Clock } from '../../agent/clock.js';
import type { Conversation } from '../../agent/conversation.js';
import { clip } from '../chat/split-text.js';
import type { DiscordMessagePayload } from './discord-render.js';
import { renderDiscordOutbound } from './discord-render.js';

const PostedSchema = z.object({ id: z.string() });

/** Discord's code for "a thread has already been created for this message". */
/** Discord names a thread with at most 100 characters. */
const THREAD_NAME_CHARS = 100;
/** Names kept for channel posts that may start a thread; the oldest go first. */
const KEPT_THREAD_NAMES = 1_000;

const THREAD_ALREADY_STARTED = 160004;

export interface DiscordChatPortOptions {
  rest: Pick<REST, 'post' | 'patch'>;
  clock: Clock;
}

export class DiscordChatPort implements ChatPort {
  /** Threads this process knows exist; others are started from their root message before the first post. */
  private readonly threads = new Set<string>();
  /** Names for threads about to be started, from the task that starts them. */
  private readonly threadNames = new Map<string, string>();

  constructor(private readonly options: DiscordChatPortOptions) {}

  /** A thread that exists already (seen on the gateway), so no post tries to start it. */
  knowThread(threadId: string): void {
    this.threads.add(threadId);
  }

  /** The name the thread started from this message will have (the task, at most 100 characters). */
  nameThread(messageId: string, name: string): void {
    this.threadNames.set(messageId, clip(name.replace(/\s+/g, ' ').trim() || 'opsbot', THREAD_NAME_CHARS));
    for (const oldest of this.threadNames.keys()) {
      if (this.threadNames.size <= KEPT_THREAD_NAMES) break;
      this.threadNames.delete(oldest);
    }
  }

  async post(conversation: Conversation, message: OutboundMessage): Promise<MessageRef> {
    const target = await this.target(conversation, threadNameFor(message));
    const rendered = renderDiscordOutbound(message, { now: this.options.clock.now() });
    let first: string | undefined;
    for (const payload of rendered.messages) {
      const posted = PostedSchema.parse(
        await this.options.rest.post(Routes.channelMessages(target), request(payload)),
      );
      first ??= posted.id;
    }
    // A channel post may get a thread later (`/ops <task>` works under its post): it is named after the post.
    if (target === conversation.channelId && message.kind === 'text') this.nameThread(first!, message.text);
    return { conversation, messageId: first! };
  }

  async update(ref: MessageRef, message: OutboundMessage): Promise<void> {
    const target = ref.conversation.threadId ?? ref.conversation.channelId;
    const [payload] = renderDiscordOutbound(message, { now: this.options.clock.now() }).messages;
    await this.options.rest.patch(Routes.channelMessage(target, ref.messageId), {
      body: { content: payload!.content ?? '', ...body(payload!) },
    });
  }

  /** Where a conversation's messages go: its thread (started now if it is new), or its channel. */
  private async target(conversation: Conversation, fallbackName: string): Promise<string> {
    const { threadId, channelId } = conversation;
    if (!threadId || threadId === channelId || this.threads.has(threadId)) return threadId ?? channelId;
    try {
      await this.options.rest.post(Routes.threads(channelId, threadId), {
        body: { name: this.threadNames.get(threadId) ?? fallbackName, auto_archive_duration: 1440 },
      });
    } catch (error) {
      if ((error as { code?: unknown }).code !== THREAD_ALREADY_STARTED) throw error;
    }
    this.threadNames.delete(threadId);
    this.threads.add(threadId);
    return threadId;
  }
}

/** A thread nobody named (no task started it): a patrol report's is named after its patrol, an alert group's after its labels. */
function threadNameFor(message: OutboundMessage): string {
  if (message.kind === 'patrol_report') return `patrol ${message.patrol}`.slice(0, 100);
  if (message.kind === 'alert_group')
    return `alert ${Object.values(message.groupLabels).join(' ')}`.trim().slice(0, 100);
  return 'opsbot';
}

function body(payload: DiscordMessagePayload) {
  return {
    embeds: payload.embeds,
    components: payload.components,
    allowed_mentions: { parse: [] as string[] },
  };
}

function request(payload: DiscordMessagePayload) {
  return {
    body: { ...(payload.content ? { content: payload.content } : {}), ...body(payload) },
    ...(payload.files
      ? {
          files: payload.files.map((file) => ({
            name: file.name,
            data: file.attachment,
            contentType: 'text/plain',
          })),
        }
      : {}),
  };
}
