// The playground's HTTP side: the page, its JSON API and the event stream, each request checked by the guard.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Clock } from '../../agent/clock.js';
import { mapInChunks } from '../http/event-loop-turns.js';
import { HttpError, readJson, sendHttpError, sendJson } from '../http/http-json.js';
import { pathOf, type RequestHandler } from '../http/http-server.js';
import type { PlaygroundGuard } from './playground-auth.js';
import type { PlaygroundDispatcher } from './playground-dispatch.js';
import type { PlaygroundEvents } from './playground-events.js';
import { isStaticPath, serveStatic } from './playground-static.js';
import {
  CHANNEL_NAME,
  ChannelLimitError,
  HISTORY_PAGE_MAX,
  type PlaygroundStore,
} from './playground-store.js';
import type { PlaygroundUser } from './playground-users.js';
import { presentMessage } from './playground-view.js';

export interface PlaygroundInfo {
  botName: string;
  slashCommand: string;
  model: { configured: boolean; name?: string };
  defaultChannel: string;
}

/** The model as it is, not as configured: for the page's model dot. */
export interface PlaygroundModelHealth {
  state: 'ready' | 'missing' | 'unlisted' | 'unreachable';
  detail: string;
}

export interface PlaygroundApiOptions {
  guard: PlaygroundGuard;
  clock: Clock;
  store: PlaygroundStore;
  events: PlaygroundEvents;
  dispatcher: PlaygroundDispatcher;
  users: PlaygroundUser[];
  info: PlaygroundInfo;
  maxTextChars: number;
  /** Cached by the caller: the page asks on load and now and then after. */
  modelHealth?: () => Promise<PlaygroundModelHealth>;
}

interface Route {
  method: string;
  path: RegExp;
  run(match: RegExpExecArray, request: IncomingMessage, response: ServerResponse): Promise<void>;
}

const clientId = z.string().regex(/^[\w-]{8,64}$/, 'a browser id of 8-64 letters, digits, - or _');
const userId = z.string().min(1).max(100);

const CreateChannelBody = z.strictObject({
  name: z
    .string()
    .transform((name) => name.trim().replace(/^#/, '').toLowerCase())
    .pipe(z.string().regex(CHANNEL_NAME, 'lower-case letters, digits, - and _, up to 40 characters')),
  user: userId.optional(),
});

/** `?before=<earlier>&limit=<n>`: the page before a cursor the previous page gave, for "Load earlier". */
const HistoryQuery = z.object({
  before: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(HISTORY_PAGE_MAX).optional(),
});

const ActionBody = z.strictObject({
  user: userId,
  clientId,
  messageId: z.string().min(1).max(100),
  /** The button's id as the message's view gave it; decoded and checked against the message. */
  button: z.string().min(1).max(100),
  /** Why, when the button is Deny; optional, as a blank reason is no reason. */
  reason: z.string().max(500).optional(),
});

export function createPlaygroundHandler(options: PlaygroundApiOptions): RequestHandler {
  const { store, dispatcher } = options;
  const PostBody = z.strictObject({
    user: userId,
    clientId,
    text: z
      .string()
      .trim()
      .min(1, 'cannot be empty')
      .max(options.maxTextChars, `at most ${options.maxTextChars} characters`),
    threadId: z.string().min(1).max(100).optional(),
  });

  const routes: Route[] = [
    {
      method: 'GET',
      path: /^\/api\/info$/,
      run: async (_match, _request, response) => {
        const health = await options.modelHealth?.();
        const model = health ? { ...options.info.model, ...health } : options.info.model;
        sendJson(response, 200, { ...options.info, model, users: options.users });
      },
    },
    {
      method: 'GET',
      path: /^\/api\/users$/,
      run: async (_match, _request, response) => sendJson(response, 200, { users: options.users }),
    },
    {
      method: 'GET',
      path: /^\/api\/channels$/,
      run: async (_match, _request, response) =>
        sendJson(response, 200, { channels: await store.channels() }),
    },
    {
      method: 'POST',
      path: /^\/api\/channels$/,
      run: async (_match, request, response) => {
        const body = await readJson(request, CreateChannelBody);
        if (await store.channel(body.name)) throw new HttpError(409, `#${body.name} already exists.`);
        try {
          sendJson(response, 201, { channel: await store.createChannel(body.name, body.user) });
        } catch (error) {
          if (error instanceof ChannelLimitError) throw new HttpError(409, error.message);
          throw error;
        }
      },
    },
    {
      method: 'GET',
      path: /^\/api\/channels\/([^/]+)\/messages$/,
      run: async (match, request, response) => {
        const channel = await store.channel(pathPart(match[1]!));
        if (!channel) throw new HttpError(404, `There is no channel #${match[1]}.`);
        const url = new URL(request.url ?? '/', 'http://playground');
        const query = HistoryQuery.safeParse(Object.fromEntries(url.searchParams));
        if (!query.success) {
          throw new HttpError(400, `Ask for a page as ?before=<earlier>&limit=<1 to ${HISTORY_PAGE_MAX}>.`);
        }
        const cursor = store.cursor;
        const now = options.clock.now();
        const page = await store.page(channel.id, {
          ...(query.data.before === undefined ? {} : { before: query.data.before }),
          ...(query.data.limit === undefined ? {} : { limit: query.data.limit }),
        });
        // Each message is serialized on its own turn-sized chunk, so a page of long messages does not hold the loop.
        const messages = await mapInChunks(page.messages, 10, (message) =>
          JSON.stringify(presentMessage(message, now)),
        );
        const head = JSON.stringify({ channel, cursor, earlier: page.earlier ?? null });
        sendRawJson(response, `${head.slice(0, -1)},"messages":[${messages.join(',')}]}`);
      },
    },
    {
      method: 'POST',
      path: /^\/api\/channels\/([^/]+)\/messages$/,
      run: async (match, request, response) => {
        const body = await readJson(request, PostBody);
        const posted = await dispatcher.post({ ...body, channelId: pathPart(match[1]!) });
        sendJson(response, 202, posted);
      },
    },
    {
      method: 'POST',
      path: /^\/api\/actions$/,
      run: async (_match, request, response) => {
        await dispatcher.act(await readJson(request, ActionBody));
        sendJson(response, 202, { accepted: true });
      },
    },
    {
      method: 'GET',
      path: /^\/api\/events$/,
      run: async (_match, request, response) => {
        const url = new URL(request.url ?? '/', 'http://playground');
        const parsed = clientId.safeParse(url.searchParams.get('client'));
        if (!parsed.success) throw new HttpError(400, 'Open the stream with ?client=<browser id>.');
        await options.events.connect(request, response, parsed.data);
      },
    },
  ];

  return async (request, response) => {
    if (!options.guard(request, response)) return;
    const path = pathOf(request);
    const method = request.method ?? 'GET';
    try {
      if (isStaticPath(path) && (method === 'GET' || method === 'HEAD'))
        return await serveStatic(path, response);
      const known = routes.filter((route) => route.path.test(path));
      if (known.length === 0) throw new HttpError(404, `Nothing is served at ${path}.`);
      const route = known.find((candidate) => candidate.method === method);
      if (!route) throw new HttpError(405, `${path} does not take ${method}.`);
      await route.run(route.path.exec(path)!, request, response);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      if (response.headersSent) response.end();
      else sendHttpError(response, error);
    }
  };
}

function sendRawJson(response: ServerResponse, payload: string): void {
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
  });
  response.end(payload);
}

function pathPart(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, `The address has a malformed part: ${raw}`);
  }
}
