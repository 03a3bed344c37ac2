// The playground's channels and their messages, kept in the Store so a reload or a restart shows the same history.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../agent/clock.js';
import { systemClock } from '../../agent/clock.js';
import type { Store } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { mapInChunks, sharedTurns } from '../http/event-loop-turns.js';
import { capMessageContent } from './playground-message-cap.js';
import { type ChangeRef, RecentChanges } from './playground-recent-changes.js';
import {
  ChannelSchema,
  type NewMessage,
  type PlaygroundChange,
  type PlaygroundChannel,
  type PlaygroundMessage,
  StoredMessageSchema,
} from './playground-records.js';

export const DEFAULT_CHANNEL = 'ops';
/** Lower case, digits, dashes and underscores, as channel names are written in settings (`#ops`). */
export const CHANNEL_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

export type {
  MessageAuthor,
  MessageContent,
  NewMessage,
  PlaygroundChange,
  PlaygroundChannel,
  PlaygroundMessage,
} from './playground-records.js';

/** Messages one page of a channel's history holds; the page asks for earlier ones with the `earlier` cursor. */
export const HISTORY_PAGE = 100;
/** The most messages one request may ask for. */
export const HISTORY_PAGE_MAX = 500;
/** Channels the playground holds unless the settings say otherwise (`playground.max_channels`). */
export const DEFAULT_MAX_CHANNELS = 50;

/** Store reads done together before the event loop gets a turn. */
const READ_CHUNK = 20;

export interface HistoryPage {
  messages: PlaygroundMessage[];
  /** Pass as `before` for the page before this one; undefined on the first page of the channel. */
  earlier: number | undefined;
}

/** Creating a channel past `playground.max_channels`; the API answers 409 with this message. */
export class ChannelLimitError extends Error {
  readonly code = 'playground_channel_limit';
  constructor(readonly limit: number) {
    super(
      `The playground already has ${limit} channels, its limit (playground.max_channels in opsbot.yaml). ` +
        'Use one of them, or raise the limit.',
    );
    this.name = 'ChannelLimitError';
  }
}

export interface PlaygroundStoreOptions {
  maxChannels?: number;
}

const keys = {
  channels: storeKeys.playgroundChannels,
  channel: storeKeys.playgroundChannel,
  message: storeKeys.playgroundMessage,
  channelLog: storeKeys.playgroundChannelLog,
};

export class PlaygroundStore {
  private readonly listeners = new Set<(change: PlaygroundChange) => void>();
  private lastSeq = 0;
  private readonly recent: RecentChanges;
  private readonly maxChannels: number;
  /** Channel creations run one at a time, so two at once cannot both take the last free place. */
  private creating: Promise<unknown> = Promise.resolve();
  /** Each channel log's length, counted once (in pages) and then kept up to date by `post`. */
  private readonly logLengths = new Map<string, number>();
  private readonly counting = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock = systemClock,
    options: PlaygroundStoreOptions = {},
  ) {
    this.recent = new RecentChanges(this.cursor);
    this.maxChannels = options.maxChannels ?? DEFAULT_MAX_CHANNELS;
  }

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

  /** The channel, created if it does not exist yet; throws ChannelLimitError when there is no room for it. */
  async ensureChannel(name: string, createdBy?: string): Promise<PlaygroundChannel> {
    return (
      (await this.channel(name)) ??
      this.oneAtATime(async () => (await this.channel(name)) ?? this.add(name, createdBy))
    );
  }

  /** Creates (or replaces) a channel; throws ChannelLimitError when there are `maxChannels` others already. */
  async createChannel(name: string, createdBy?: string): Promise<PlaygroundChannel> {
    return this.oneAtATime(() => this.add(name, createdBy));
  }

  private oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const done = this.creating.then(work, work);
    this.creating = done.catch(() => undefined);
    return done;
  }

  private async add(name: string, createdBy: string | undefined): Promise<PlaygroundChannel> {
    if (!CHANNEL_NAME.test(name)) throw new Error(`Not a channel name: ${name}`);
    const existing = await this.store.members(keys.channels);
    if (!existing.includes(name) && existing.length >= this.maxChannels) {
      throw new ChannelLimitError(this.maxChannels);
    }
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
    // Counted before the append, so a first count that is still paging cannot miss or double count this one.
    await this.logLength(input.channelId);
    const now = this.clock.now();
    const message: PlaygroundMessage = {
      id: `m_${now.toString(36)}_${randomBytes(5).toString('hex')}`,
      channelId: input.channelId,
      ...(input.threadId ? { threadId: input.threadId } : {}),
      author: input.author,
      content: capMessageContent(input.content),
      createdAt: now,
      updatedAt: now,
      seq: this.nextSeq(),
    };
    await this.store.set(keys.message(message.id), message);
    await this.store.append(keys.channelLog(message.channelId), message.id);
    this.logLengths.set(message.channelId, (this.logLengths.get(message.channelId) ?? 0) + 1);
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
    const changed = change(current);
    const next = {
      ...changed,
      content: capMessageContent(changed.content),
      id,
      updatedAt: this.clock.now(),
      seq: this.nextSeq(),
    };
    await this.store.set(keys.message(id), next);
    this.emit({ type: 'message', message: next });
    return next;
  }

  async message(id: string): Promise<PlaygroundMessage | undefined> {
    const parsed = StoredMessageSchema.safeParse(await this.store.get(keys.message(id)));
    return parsed.success ? parsed.data : undefined;
  }

  /** The channel's latest messages, thread replies included, oldest first. */
  async history(channelId: string, limit = HISTORY_PAGE): Promise<PlaygroundMessage[]> {
    return (await this.page(channelId, { limit })).messages;
  }

  /**
   * One page of the channel's messages, oldest first: the latest `limit` before log position `before` (the
   * latest of all without it). Reads are chunked, so a large page does not hold the event loop.
   */
  async page(channelId: string, options: { before?: number; limit?: number } = {}): Promise<HistoryPage> {
    const limit = Math.min(Math.max(1, options.limit ?? HISTORY_PAGE), HISTORY_PAGE_MAX);
    const length = await this.logLength(channelId);
    const end = Math.min(Math.max(0, options.before ?? length), length);
    const start = Math.max(0, end - limit);
    const ids =
      end > start
        ? await this.store.readLog<string>(keys.channelLog(channelId), {
            fromIndex: start,
            limit: end - start,
          })
        : [];
    const found = await mapInChunks(ids, READ_CHUNK, (id) => this.message(id));
    return {
      messages: found.filter((message): message is PlaygroundMessage => message !== undefined),
      earlier: start > 0 ? start : undefined,
    };
  }

  /**
   * What changed after `seq`, for a browser reconnecting with Last-Event-ID: at most the last REPLAY_LIMIT
   * changes of this process, each message at its newest. Undefined when the browser missed more than that (or
   * changes of an earlier process): it then loads the history itself.
   */
  async changesSince(seq: number): Promise<PlaygroundChange[] | undefined> {
    const refs = this.recent.since(seq);
    if (refs === undefined) return undefined;
    const changes = await mapInChunks(refs, READ_CHUNK, (ref) => this.changeOf(ref));
    return changes
      .filter((change): change is PlaygroundChange => change !== undefined)
      .sort((a, b) => seqOf(a) - seqOf(b));
  }

  private async changeOf(ref: ChangeRef): Promise<PlaygroundChange | undefined> {
    if (ref.type === 'channel') {
      const channel = await this.channel(ref.id);
      return channel && { type: 'channel', channel };
    }
    const message = await this.message(ref.id);
    return message && { type: 'message', message };
  }

  /** Counts a log once, a page at a time with the event loop free between pages; later posts add one each. */
  private async logLength(channelId: string): Promise<number> {
    for (;;) {
      const known = this.logLengths.get(channelId);
      if (known !== undefined) return known;
      let counting = this.counting.get(channelId);
      if (counting === undefined) {
        counting = this.countLog(keys.channelLog(channelId))
          .then((count) => void this.logLengths.set(channelId, count))
          .finally(() => this.counting.delete(channelId));
        this.counting.set(channelId, counting);
      }
      await counting;
    }
  }

  private async countLog(log: string): Promise<number> {
    const pageSize = 5_000;
    let count = 0;
    for (;;) {
      const page = await this.store.readLog<unknown>(log, { fromIndex: count, limit: pageSize });
      count += page.length;
      if (page.length < pageSize) return count;
      await sharedTurns.take();
    }
  }

  // Microseconds since the epoch keep growing across restarts, so a Last-Event-ID from before one still works.
  private nextSeq(): number {
    this.lastSeq = Math.max(this.clock.now() * 1000, this.lastSeq + 1);
    return this.lastSeq;
  }

  private emit(change: PlaygroundChange): void {
    this.recent.add(
      change.type === 'message'
        ? { type: 'message', id: change.message.id, seq: change.message.seq }
        : { type: 'channel', id: change.channel.id, seq: change.channel.seq },
    );
    for (const listener of this.listeners) listener(change);
  }
}

export function seqOf(change: PlaygroundChange): number {
  return change.type === 'message' ? change.message.seq : change.channel.seq;
}
