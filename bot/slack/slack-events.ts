// Bolt listeners: ack at once, then normalize mentions, DMs, thread replies, /ops and buttons into ChatEvents.
import type { App } from '@slack/bolt';
import type { Logger } from '../../agent/logger.js';
import { type ChatEvent, ChatEventSchema, type RouterReply } from '../chat-event.js';
import type { BackgroundWork } from './background-work.js';
import { APPROVE_ACTION_ID, DENY_ACTION_ID } from './slack-approval-card.js';
import type { SlackChannelNames } from './slack-channel-names.js';
import type { EphemeralReply, EphemeralTarget } from './slack-ephemeral.js';
import type { SlackIdentity } from './slack-identity.js';
import {
  type BotSelf,
  normalizeBlockAction,
  normalizeCommand,
  normalizeMessageEvent,
} from './slack-normalize.js';
import { BlockActionsSchema, SlashCommandSchema } from './slack-payloads.js';
import { ANSWER_ACTION_PREFIX } from './slack-render.js';

export interface SlackListenerDeps {
  router: { handle(event: ChatEvent): Promise<RouterReply> };
  identity: Pick<SlackIdentity, 'principal'>;
  channels: Pick<SlackChannelNames, 'name'>;
  self: BotSelf;
  slashCommand: string;
  ephemeral: EphemeralReply;
  /** The question a run is waiting on, from the stored run; undefined once answered or expired. */
  openQuestion(runId: string): Promise<OpenQuestion | undefined>;
  background: BackgroundWork;
  logger: Logger;
}

export interface OpenQuestion {
  question: string;
  choices: string[];
}

const BUTTON_ACTION_IDS = new RegExp(
  `^(${APPROVE_ACTION_ID}|${DENY_ACTION_ID}|${ANSWER_ACTION_PREFIX}(_\\d+)?)$`,
);

export function registerSlackListeners(app: App, deps: SlackListenerDeps): void {
  const { background, logger } = deps;
  // Bolt has already acked Events API requests; the run may take minutes, so none of it holds the listener.
  const onMessage = async ({ body, context }: { body: unknown; context: { retryNum?: number } }) => {
    if (context.retryNum) logger.info({ retryNum: context.retryNum }, 'Slack redelivered an event');
    background.run('message', () => handleMessage(deps, body));
  };
  app.event('app_mention', onMessage);
  app.event('message', onMessage);

  app.command(deps.slashCommand, async ({ ack, body, respond }) => {
    await ack();
    background.run('slash command', async () => {
      const parsed = SlashCommandSchema.safeParse(body);
      if (!parsed.success) return logger.warn({}, 'a slash command payload in an unexpected shape');
      const command = normalizeCommand(parsed.data);
      const target: EphemeralTarget = {
        channel: command.conversation.channelId,
        user: command.userId,
        respond,
      };
      const principal = await deps.identity.principal(command.userId);
      await dispatch(deps, target, { kind: 'command', ...omitUser(command), principal });
    });
  });

  app.action({ type: 'block_actions', action_id: BUTTON_ACTION_IDS }, async ({ ack, body, respond }) => {
    await ack();
    background.run('button', async () => {
      const parsed = BlockActionsSchema.safeParse(body);
      if (!parsed.success) return logger.warn({}, 'a button payload in an unexpected shape');
      const normalized = normalizeBlockAction(parsed.data);
      if (!normalized.ok) return logger.warn({ reason: normalized.skip }, 'ignored a button click');
      const click = normalized.value;
      const target: EphemeralTarget = {
        channel: click.conversation.channelId,
        user: click.userId,
        respond,
        ...(click.conversation.threadId ? { threadTs: click.conversation.threadId } : {}),
      };
      const principal = await deps.identity.principal(click.userId);
      const base = { eventId: click.eventId, principal, conversation: click.conversation };
      if (click.intent.action !== 'answer') {
        await dispatch(deps, target, {
          ...base,
          kind: 'action',
          action: click.intent.action,
          target: click.intent.approvalId,
        });
        return;
      }
      const question = await deps.openQuestion(click.intent.runId);
      const choice = question?.choices[click.intent.choice];
      if (!question || choice === undefined) {
        await deps.ephemeral(target, 'This question is no longer open: it was answered, or it expired.');
        return;
      }
      // The kernel updates the question with the answer, for a click and for a thread reply alike.
      await dispatch(deps, target, {
        ...base,
        kind: 'action',
        action: 'answer',
        target: click.intent.runId,
        value: choice,
      });
    });
  });
}

async function handleMessage(deps: SlackListenerDeps, body: unknown): Promise<void> {
  const normalized = normalizeMessageEvent(body, deps.self);
  if (!normalized.ok) {
    deps.logger.debug({ reason: normalized.skip }, 'ignored a Slack message');
    return;
  }
  const message = normalized.value;
  const [principal, channelName] = await Promise.all([
    deps.identity.principal(message.userId),
    message.direct ? undefined : deps.channels.name(message.conversation.channelId),
  ]);
  const conversation = { ...message.conversation, ...(channelName ? { channelName } : {}) };
  const target: EphemeralTarget = {
    channel: conversation.channelId,
    user: message.userId,
    ...(conversation.threadId ? { threadTs: conversation.threadId } : {}),
  };
  await dispatch(deps, target, {
    kind: 'message',
    eventId: message.eventId,
    principal,
    conversation,
    text: message.text,
    mentioned: message.mentioned,
    direct: message.direct,
  });
}

/** Hands the event to the router and tells the person, privately, whatever the router wants only them to see. */
async function dispatch(
  deps: SlackListenerDeps,
  target: EphemeralTarget,
  event: ChatEvent,
): Promise<RouterReply | undefined> {
  const checked = ChatEventSchema.safeParse(event);
  if (!checked.success) {
    deps.logger.warn({ eventId: event.eventId }, 'a Slack event did not normalize to a valid ChatEvent');
    return undefined;
  }
  const reply = await deps.router.handle(checked.data);
  if (reply.duplicate) {
    deps.logger.info({ eventId: event.eventId }, 'dropped a repeated Slack delivery');
  } else if (reply.ephemeral) {
    await deps.ephemeral(target, reply.ephemeral);
  }
  return reply;
}

function omitUser<T extends { userId: string }>(value: T): Omit<T, 'userId'> {
  const { userId: _userId, ...rest } = value;
  return rest;
}
