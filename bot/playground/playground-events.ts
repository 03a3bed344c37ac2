// The live stream to browsers over SSE: every saved change, replays after a reconnect, and per-browser ephemerals.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Clock, systemClock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import { sharedTurns } from '../http/event-loop-turns.js';
import { HttpError } from '../http/http-json.js';
import { type PlaygroundChange, type PlaygroundStore, seqOf } from './playground-store.js';
import { presentMessage } from './playground-view.js';

/** A reply only the person who acted sees (Slack's ephemeral message); never stored. */
export interface Ephemeral {
  id: string;
  userId: string;
  text: string;
  channelId: string;
  threadId?: string;
  at: number;
}

interface Stream {
  clientId: string;
  response: ServerResponse;
}

export interface PlaygroundEventsOptions {
  store: PlaygroundStore;
  logger: Logger;
  /** For the views sent with each message (an approval past its expiry shows as expired). */
  clock?: Clock;
  /** A comment line this often keeps proxies and idle timeouts from closing the stream. */
  heartbeatMs?: number;
  /**
   * Streams one browser id may hold; its oldest is closed for a new one. A page holds one, so more are left over
   * from reconnects the server did not see end, or a script's: closing the oldest frees the stale ones first.
   */
  maxStreamsPerClient?: number;
  /** Streams in all; past it a new one is refused with 429 (browser ids are the client's own choice). */
  maxStreams?: number;
}

export const MAX_STREAMS_PER_CLIENT = 5;
export const MAX_STREAMS = 200;
/** Replayed frames written before the event loop gets a turn. */
const REPLAY_CHUNK = 20;

export class PlaygroundEvents {
  private readonly streams = new Set<Stream>();
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly options: PlaygroundEventsOptions) {
    this.unsubscribe = options.store.subscribe((change) => this.broadcast(change));
    this.heartbeat = setInterval(() => {
      for (const stream of this.streams) stream.response.write(': keep-alive\n\n');
    }, options.heartbeatMs ?? 20_000);
    this.heartbeat.unref();
  }

  get connections(): number {
    return this.streams.size;
  }

  /**
   * Opens a stream. A browser that reconnects sends Last-Event-ID and gets what changed since; a new one is told
   * to load the history itself (`ready` with replayed false).
   */
  async connect(request: IncomingMessage, response: ServerResponse, clientId: string): Promise<void> {
    const own = [...this.streams].filter((stream) => stream.clientId === clientId);
    const perClient = this.options.maxStreamsPerClient ?? MAX_STREAMS_PER_CLIENT;
    for (const oldest of own.slice(0, Math.max(0, own.length - perClient + 1))) {
      this.streams.delete(oldest);
      oldest.response.end();
    }
    const maxStreams = this.options.maxStreams ?? MAX_STREAMS;
    if (this.streams.size >= maxStreams) {
      throw new HttpError(
        429,
        `The playground has ${maxStreams} live streams open, its limit; try again later.`,
        {
          retryAfterSeconds: 5,
        },
      );
    }
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    response.write('retry: 1500\n\n');
    const stream: Stream = { clientId, response };
    // Registered before the replay, so nothing saved meanwhile is lost; the page keeps the newest of duplicates.
    this.streams.add(stream);
    request.on('close', () => this.streams.delete(stream));

    const since = lastEventId(request);
    // Taken before the replay is read: anything saved meanwhile is streamed live, and after a reload asked from here.
    const cursor = this.options.store.cursor;
    const changes = since === undefined ? undefined : await this.options.store.changesSince(since);
    if (changes === undefined) {
      // A new browser, or one that missed more than a replay holds: it loads the history (a page at a time).
      write(response, { id: cursor, event: 'ready', data: { replayed: false } });
      return;
    }
    for (let index = 0; index < changes.length; index++) {
      if (index % REPLAY_CHUNK === 0) await sharedTurns.take();
      if (response.writableEnded || response.destroyed) return;
      write(response, this.frame(changes[index]!));
    }
    write(response, { event: 'ready', data: { replayed: true, changes: changes.length } });
  }

  /** Sends an ephemeral to the browser that acted, and nowhere else. */
  ephemeral(clientId: string, ephemeral: Ephemeral): void {
    let delivered = false;
    for (const stream of this.streams) {
      if (stream.clientId !== clientId) continue;
      write(stream.response, { event: 'ephemeral', data: ephemeral });
      delivered = true;
    }
    if (!delivered) {
      this.options.logger.debug({ clientId }, 'an ephemeral reply had no open browser to go to');
    }
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.heartbeat);
    for (const stream of this.streams) stream.response.end();
    this.streams.clear();
  }

  private broadcast(change: PlaygroundChange): void {
    const event = this.frame(change);
    for (const stream of this.streams) write(stream.response, event);
  }

  private frame(change: PlaygroundChange): Frame {
    const now = (this.options.clock ?? systemClock).now();
    return change.type === 'message'
      ? { id: seqOf(change), event: 'message', data: presentMessage(change.message, now) }
      : { id: seqOf(change), event: 'channel', data: change.channel };
  }
}

interface Frame {
  id?: number;
  event: string;
  data: unknown;
}

function write(response: ServerResponse, { id, event, data }: Frame): void {
  if (response.writableEnded || response.destroyed) return;
  // JSON has no raw line breaks, so one data line always carries the whole event.
  response.write(
    `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`,
  );
}

function lastEventId(request: IncomingMessage): number | undefined {
  const header = request.headers['last-event-id'];
  const query = new URL(request.url ?? '/', 'http://playground').searchParams.get('lastEventId');
  const raw = typeof header === 'string' && header !== '' ? header : query;
  if (raw === null || !/^\d{1,17}$/.test(raw)) return undefined;
  return Number(raw);
}
