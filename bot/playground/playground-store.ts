// The playground's channels and their messages, kept in the Store so a reload or a restart shows the same history.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { OutboundMessage } from '../../agent/chat-port.js';
import type { Clock } from '../../agent/clock.js';
import { systemClock } from '../../agent/clock.js';
import type { Store } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';

export const DEFAULT_CHANNEL = 'ops';
/** Lower case, digits, dashes and underscores, as channel names are written in settings (`#ops`). */
export const CHANNEL_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

const AuthorSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('bot'), name: z.string() }),
  z.object({
    kind: z.literal('user'),
    userId: z.string(),
    displayName: z.string(),
    roles: z.array(z.string()),
  }),
]);
export type MessageAuthor = z.infer<typeof AuthorSchema>;

/** What a person typed, or what the bot sent through the ChatPort. */
export type MessageContent = OutboundMessage | { kind: 'user_text'; text: string };

const MessageSchema = z.object({
  id: z.string(),
  channelId: z.string(),
  threadId: z.string().optional(),
  author: AuthorSchema,
  // The kernel's OutboundMessage has no schema of its own; the page renders unknown kinds as plain text.
  content: z.looseObject({ kind: z.string() }).transform((value) => value as MessageContent),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** Grows with every change; SSE event ids, so a reconnect can ask for what changed since. */
  seq: z.number(),
});
export type PlaygroundMessage = z.infer<typeof MessageSchema>;

/**
 * Before the kernel sent answers with the question, the playground marked answered questions on the record
 * itself; such stored messages read as the kernel's answered question now.
 */
const StoredMessageSchema = z.preprocess((stored) => {
  if (typeof stored !== 'object' || stored === null || !('answered' in stored)) return stored;
  const { answered, ...message } = stored as Record<string, unknown> & { content?: { kind?: unknown } };
  const legacy = z.object({ by: z.string(), value: z.string(), at: z.number() }).safeParse(answered);
  const content = message.content;
  if (!legacy.success || content?.kind !== 'question' || 'answered' in content) return message;
  const { by, value, at } = legacy.data;
  return { ...message, content: { ...content, answered: { by, answer: value, at } } };
}, MessageSchema);

const ChannelSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number(),
  createdBy: z.string().optional(),
  seq: z.number(),
});
export type PlaygroundChannel = z.infer<typeof ChannelSchema>;

export type PlaygroundChange =
  | { type: 'message'; message: PlaygroundMessage }
  | { type: 'channel'; channel: PlaygroundChannel };

export interface NewMessage {
  channelId: string;
  threadId?: string | undefined;
  author: MessageAuthor;
  content: MessageContent;
}

/** Messages a channel keeps showing; older ones stay in the Store but are not sent to the page. */
const HISTORY_LIMIT = 500;

const keys = {
  channels: storeKeys.playgroundChannels,
  channel: storeKeys.playgroundChannel,
  message: storeKeys.playgroundMessage,
  channelLog: storeKeys.playgroundChannelLog,
};

export class PlaygroundStore {
  private readonly listeners = new Set<(change: PlaygroundChange) => void>();
  private lastSeq = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Called after every saved change, for the live stream to the browsers. */
  subscribe(listener: (change: PlaygroundChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A sequence number at or after every change so far, and before any change to come: a browser that has
   * loaded everything can resume from here. One below "now", because the next change may get exactly "now".
   */
  get cursor(): number {
    return Math.max(this.lastSeq, this.clock.now() * 1000 - 1);
  }

  async ensureChannel(name: string, createdBy?: string): Promise<PlaygroundChannel> {
    return (await this.channel(name)) ?? this.createChannel(name, createdBy);
  }

  async createChannel(name: string, createdBy?: string): Promise<PlaygroundChannel> {
    if (!CHANNEL_NAME.test(name)) throw new Error(`Not a channel name: ${name}`);
    const channel: PlaygroundChannel = {
      id: name,
      name,
      createdAt: this.clock.now(),
      ...(createdBy ? { createdBy } : {}),
      seq: this.nextSeq(),
    };
    await this.store.set(keys.channel(channel.id), channel);
    await this.store.addToSet(keys.channels, channel.id);
    this.emit({ type: 'channel', channel });
    return channel;
  }

  async channel(id: string): Promise<PlaygroundChannel | undefined> {
    const parsed = ChannelSchema.safeParse(await this.store.get(keys.channel(id)));
    return parsed.success ? parsed.data : undefined;
  }

  /** Channels in the order they were created, so `#ops` stays first. */
  async channels(): Promise<PlaygroundChannel[]> {
    const found = await Promise.all((await this.store.members(keys.channels)).map((id) => this.channel(id)));
    return found
      .filter((channel): channel is PlaygroundChannel => channel !== undefined)
      .sort((a, b) => a.createdAt - b.createdAt || a.name.localeCompare(b.name));
  }

  async post(input: NewMessage): Promise<PlaygroundMessage> {
    const now = this.clock.now();
    const message: PlaygroundMessage = {
      id: `m_${now.toString(36)}_${randomBytes(5).toString('hex')}`,
      channelId: input.channelId,
      ...(input.threadId ? { threadId: input.threadId } : {}),
      author: input.author,
      content: input.content,
      createdAt: now,
      updatedAt: now,
      seq: this.nextSeq(),
    };
    await this.store.set(keys.message(message.id), message);
    await this.store.append(keys.channelLog(message.channelId), message.id);
    this.emit({ type: 'message', message });
    return message;
  }

  /** Changes a message in place; undefined when there is no such message. */
  async update(
    id: string,
    change: (message: PlaygroundMessage) => PlaygroundMessage,
  ): Promise<PlaygroundMessage | undefined> {
    const current = await this.message(id);
    if (!current) return undefined;
    const next = { ...change(current), id, updatedAt: this.clock.now(), seq: this.nextSeq() };
    await this.store.set(keys.message(id), next);
    this.emit({ type: 'message', message: next });
    return next;
  }

  async message(id: string): Promise<PlaygroundMessage | undefined> {
    const parsed = StoredMessageSchema.safeParse(await this.store.get(keys.message(id)));
    return parsed.success ? parsed.data : undefined;
  }

  /** The channel's latest messages, thread replies included, oldest first. */
  async history(channelId: string, limit = HISTORY_LIMIT): Promise<PlaygroundMessage[]> {
    const ids = await this.store.readLog<string>(keys.channelLog(channelId));
    const found = await Promise.all(ids.slice(-limit).map((id) => this.message(id)));
    return found.filter((message): message is PlaygroundMessage => message !== undefined);
  }

  /** Everything that changed after `seq`, for a browser reconnecting with Last-Event-ID. */
  async changesSince(seq: number): Promise<PlaygroundChange[]> {
    const changes: PlaygroundChange[] = [];
    for (const channel of await this.channels()) {
      if (channel.seq > seq) changes.push({ type: 'channel', channel });
      for (const message of await this.history(channel.id)) {
        if (message.seq > seq) changes.push({ type: 'message', message });
      }
    }
    return changes.sort((a, b) => seqOf(a) - seqOf(b));
  }

  // Microseconds since the epoch keep growing across restarts, so a Last-Event-ID from before one still works.
  private nextSeq(): number {
    this.lastSeq = Math.max(this.clock.now() * 1000, this.lastSeq + 1);
    return this.lastSeq;
  }

  private emit(change: PlaygroundChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

export function seqOf(change: PlaygroundChange): number {
  return change.type === 'message' ? change.message.seq : change.channel.seq;
}
