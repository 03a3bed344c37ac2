// The REST routes an adapter uses, answered from and into the fake's state. Each returns a status and a body.
import { channelPayload, messagePayload, userPayload } from './discord-payloads.js';
import { type FakeModal, invalidFormBody, readModal } from './fake-discord-modals.js';
import type {
  FakeDiscordAttachment,
  FakeDiscordMessage,
  FakeDiscordState,
  FakeDiscordUser,
} from './fake-discord-state.js';
import { FAKE_DISCORD_BOT } from './fake-discord-state.js';

export type Body = Record<string, unknown>;

export interface RouteAnswer {
  status: number;
  /** Undefined means an empty 204 with no content type. */
  body?: unknown;
}

/** An interaction the gateway handed out, so its webhook routes know where to post. */
export interface FakeInteraction {
  id: string;
  token: string;
  channelId: string;
  guildId?: string;
  /** 2 a slash command, 3 a component, 5 a modal submit. */
  type: number;
  /** Who acted, and their role ids in the guild. */
  user: FakeDiscordUser;
  roles: string[];
  /** The message a button sits on (or the one a modal submit came from). */
  messageId?: string;
  /** The callback type the bot answered with (4 reply, 5 defer, 6 deferred update, 7 update, 9 modal). */
  callbackType?: number;
  /** The modal the bot showed (callback type 9), for the person to fill in. */
  modal?: FakeModal;
  /** The message `@original` stands for, once there is one. */
  originalId?: string;
  /** Past its 15 minutes: the callback is unknown and the webhook token invalid. */
  expired?: boolean;
  /** Expires the moment it is acknowledged, as if the run then took longer than the token lives. */
  expiresOnAck?: boolean;
}

export interface RouteContext {
  state: FakeDiscordState;
  interactions: Map<string, FakeInteraction>;
  gatewayUrl: string;
  dispatch: (type: string, data: unknown) => void;
  commands: Map<string, unknown[]>;
}

type Handler = (context: RouteContext, params: string[], body: Body) => RouteAnswer;

const BOT_USER: FakeDiscordUser = {
  id: FAKE_DISCORD_BOT.userId,
  username: FAKE_DISCORD_BOT.username,
  bot: true,
};

const ROUTES: Array<[method: string, pattern: RegExp, handler: Handler]> = [
  ['GET', /^\/gateway\/bot$/, gatewayBot],
  ['POST', /^\/channels\/(\d+)\/messages$/, postMessage],
  ['PATCH', /^\/channels\/(\d+)\/messages\/(\d+)$/, editMessage],
  ['POST', /^\/channels\/(\d+)\/messages\/(\d+)\/threads$/, startThread],
  ['POST', /^\/interactions\/(\d+)\/([^/]+)\/callback$/, interactionCallback],
  ['POST', /^\/webhooks\/(\d+)\/([^/]+)$/, followUp],
  ['PATCH', /^\/webhooks\/(\d+)\/([^/]+)\/messages\/@original$/, editOriginal],
  ['GET', /^\/applications\/(\d+)\/commands$/, getCommands],
  ['GET', /^\/applications\/(\d+)\/guilds\/(\d+)\/commands$/, getCommands],
  ['PUT', /^\/applications\/(\d+)\/commands$/, putCommands],
  ['PUT', /^\/applications\/(\d+)\/guilds\/(\d+)\/commands$/, putCommands],
  ['POST', /^\/users\/@me\/channels$/, openDm],
];

export function answerRoute(context: RouteContext, method: string, route: string, body: Body): RouteAnswer {
  for (const [routeMethod, pattern, handler] of ROUTES) {
    const match = pattern.exec(route);
    if (match && routeMethod === method) return handler(context, match.slice(1), body);
  }
  return error(404, 0, '404: Not Found');
}

function gatewayBot(context: RouteContext): RouteAnswer {
  return {
    status: 200,
    body: {
      url: context.gatewayUrl,
      shards: 1,
      session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
    },
  };
}

function postMessage(context: RouteContext, [channelId]: string[], body: Body): RouteAnswer {
  const channel = context.state.channels.get(channelId!);
  if (!channel) return error(404, 10003, 'Unknown Channel');
  const message = addMessage(context.state, channelId!, body);
  return { status: 200, body: messagePayload(message, channel.guildId) };
}

function editMessage(context: RouteContext, [channelId, messageId]: string[], body: Body): RouteAnswer {
  const message = context.state.message(messageId!);
  if (!message || message.channelId !== channelId) return error(404, 10008, 'Unknown Message');
  applyEdit(message, body);
  return { status: 200, body: messagePayload(message, context.state.channels.get(channelId!)?.guildId) };
}

function startThread(context: RouteContext, [channelId, messageId]: string[], body: Body): RouteAnswer {
  const parent = context.state.channels.get(channelId!);
  const message = context.state.message(messageId!);
  if (!parent || !message || message.channelId !== channelId) return error(404, 10008, 'Unknown Message');
  if (message.threadId) return error(400, 160004, 'A thread has already been created for this message');
  // A thread started from a message takes that message's id, as on Discord.
  const thread = {
    id: message.id,
    type: 11,
    name: String(body.name ?? 'thread').slice(0, 100),
    parentId: parent.id,
    ...(parent.guildId ? { guildId: parent.guildId } : {}),
  };
  context.state.channels.set(thread.id, thread);
  message.threadId = thread.id;
  const payload = { ...channelPayload(thread), owner_id: BOT_USER.id };
  context.dispatch('THREAD_CREATE', { ...payload, newly_created: true });
  return { status: 201, body: payload };
}

function interactionCallback(
  context: RouteContext,
  [interactionId, token]: string[],
  body: Body,
): RouteAnswer {
  const interaction = context.interactions.get(token!);
  if (!interaction || interaction.id !== interactionId || interaction.expired) {
    return error(404, 10062, 'Unknown interaction');
  }
  if (interaction.callbackType !== undefined) {
    return error(400, 40060, 'Interaction has already been acknowledged.');
  }
  const type = Number(body.type);
  const data = (body.data ?? {}) as Body;
  if (type === 9) {
    // A modal cannot answer a modal submit, and a malformed one is refused whole: the interaction stays unanswered.
    const checked =
      interaction.type === 5
        ? { ok: false as const, errors: { type: 'A modal submit cannot be answered with a modal.' } }
        : readModal(data);
    if (!checked.ok) return { status: 400, body: invalidFormBody(checked.errors) };
    interaction.modal = checked.modal;
  }
  interaction.callbackType = type;
  if (interaction.expiresOnAck) interaction.expired = true;
  if (type === 4) {
    interaction.originalId = addMessage(context.state, interaction.channelId, data, token).id;
  } else if (type === 7 && interaction.messageId) {
    const message = context.state.message(interaction.messageId);
    if (message) applyEdit(message, data);
    interaction.originalId = interaction.messageId;
  } else if (type === 6) {
    interaction.originalId = interaction.messageId;
  }
  return { status: 204 };
}

function followUp(context: RouteContext, [, token]: string[], body: Body): RouteAnswer {
  const interaction = context.interactions.get(token!);
  if (!interaction) return error(404, 10015, 'Unknown Webhook');
  if (interaction.expired) return error(401, 50027, 'Invalid Webhook Token');
  const message = addMessage(context.state, interaction.channelId, body, token);
  return { status: 200, body: messagePayload(message, interaction.guildId) };
}

function editOriginal(context: RouteContext, [, token]: string[], body: Body): RouteAnswer {
  const interaction = context.interactions.get(token!);
  if (!interaction || interaction.callbackType === undefined) return error(404, 10015, 'Unknown Webhook');
  if (interaction.expired) return error(401, 50027, 'Invalid Webhook Token');
  let message = interaction.originalId ? context.state.message(interaction.originalId) : undefined;
  if (message) applyEdit(message, body);
  else {
    // A deferred reply shows "thinking" until its first edit, which is when the message takes its content.
    message = addMessage(context.state, interaction.channelId, body, token);
    interaction.originalId = message.id;
  }
  return { status: 200, body: messagePayload(message, interaction.guildId) };
}

function getCommands(context: RouteContext, [, guildId]: string[]): RouteAnswer {
  return { status: 200, body: context.commands.get(guildId ?? 'global') ?? [] };
}

function putCommands(context: RouteContext, [applicationId, guildId]: string[], body: unknown): RouteAnswer {
  const commands = (Array.isArray(body) ? body : []).map((command: Body) => ({
    id: context.state.nextId(),
    application_id: applicationId,
    ...(guildId ? { guild_id: guildId } : {}),
    version: context.state.nextId(),
    default_member_permissions: null,
    type: 1,
    description: '',
    options: [],
    ...command,
  }));
  context.commands.set(guildId ?? 'global', commands);
  return { status: 200, body: commands };
}

function openDm(context: RouteContext, _params: string[], body: Body): RouteAnswer {
  const recipientId = String(body.recipient_id);
  const member = [...context.state.guilds.values()]
    .flatMap((guild) => guild.members)
    .find((candidate) => candidate.user.id === recipientId);
  const channel = context.state.dmChannel(
    member?.user ?? { id: recipientId, username: `user${recipientId}` },
  );
  return { status: 200, body: { ...channelPayload(channel), recipients: [userPayload(channel.recipient!)] } };
}

function addMessage(
  state: FakeDiscordState,
  channelId: string,
  body: Body,
  token?: string,
): FakeDiscordMessage {
  const message: FakeDiscordMessage = {
    id: state.nextId(),
    channelId,
    author: BOT_USER,
    content: typeof body.content === 'string' ? body.content : '',
    embeds: Array.isArray(body.embeds) ? body.embeds : [],
    components: Array.isArray(body.components) ? body.components : [],
    attachments: attachmentsOf(body),
    ...(body.allowed_mentions === undefined ? {} : { allowedMentions: body.allowed_mentions }),
    ...(token ? { interactionToken: token } : {}),
    history: [],
  };
  state.allMessages.push(message);
  return message;
}

function applyEdit(message: FakeDiscordMessage, body: Body): void {
  message.history.push({ content: message.content, embeds: message.embeds, components: message.components });
  if (typeof body.content === 'string') message.content = body.content;
  if (Array.isArray(body.embeds)) message.embeds = body.embeds;
  if (Array.isArray(body.components)) message.components = body.components;
  if (body.allowed_mentions !== undefined) message.allowedMentions = body.allowed_mentions;
  if (Array.isArray(body.attachments)) message.attachments = attachmentsOf(body);
}

/** The uploaded files, which the API layer put into `attachments` with their text. */
function attachmentsOf(body: Body): FakeDiscordAttachment[] {
  if (!Array.isArray(body.attachments)) return [];
  return body.attachments
    .filter((attachment: Body) => typeof attachment.content === 'string')
    .map((attachment: Body) => ({
      id: String(attachment.id),
      filename: String(attachment.filename),
      content: String(attachment.content),
    }));
}

function error(status: number, code: number, message: string): RouteAnswer {
  return { status, body: { message, code } };
}
