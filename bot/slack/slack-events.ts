// Bolt listeners: map mentions, DMs, thread replies, /ops and buttons to ChatEvents, and hand them to the intake.
import type { App } from '@slack/bolt';
import type { Logger } from '../../agent/logger.js';
import { actionFromButton, type ChatEvent } from '../chat/chat-event.js';
import type { EventIntake } from '../chat/event-intake.js';
import { followableRespond, type ResponseUrlPolicy } from './response-url.js';
import { BUTTON_ACTION_IDS } from './slack-blocks.js';
import type { SlackChannelNames } from './slack-channel-names.js';
import { openDenyReason, registerDenyReason } from './slack-deny-reason.js';
import type { EphemeralReply, EphemeralTarget } from './slack-ephemeral.js';
import type { SlackIdentity } from './slack-identity.js';
import {
  type BotSelf,
  normalizeBlockAction,
  normalizeCommand,
  normalizeMessageEvent,
} from './slack-normalize.js';
import { BlockActionsSchema, SlashCommandSchema } from './slack-payloads.js';

export interface SlackListenerDeps {
  intake: Pick<EventIntake, 'receive'>;
  identity: Pick<SlackIdentity, 'principal'>;
  channels: Pick<SlackChannelNames, 'name'>;
  self: BotSelf;
  slashCommand: string;
  ephemeral: EphemeralReply;
  /** Which response_urls are followed; others are answered by chat.postEphemeral. */
  responseUrls: ResponseUrlPolicy;
  logger: Logger;
}

export function registerSlackListeners(app: App, deps: SlackListenerDeps): void {
  const { intake, logger } = deps;
  // Bolt has already acked Events API requests; the run may take minutes, so none of it holds the listener.
  const onMessage = async ({ body, context }: { body: unknown; context: { retryNum?: number } }) => {
    if (context.retryNum) logger.info({ retryNum: context.retryNum }, 'Slack redelivered an event');
    const normalized = normalizeMessageEvent(body, deps.self);
    if (!normalized.ok) {
      logger.debug({ reason: normalized.skip }, 'ignored a Slack message');
      return;
    }
    const message = normalized.value;
    const target: EphemeralTarget = {
      channel: message.conversation.channelId,
      user: message.userId,
      ...(message.conversation.threadId ? { threadTs: message.conversation.threadId } : {}),
    };
    await intake.receive({
      name: 'message',
      reply: (text) => deps.ephemeral(target, text),
      build: async (): Promise<ChatEvent> => {
        const [principal, channelName] = await Promise.all([
          deps.identity.principal(message.userId),
          message.direct ? undefined : deps.channels.name(message.conversation.channelId),
        ]);
        return {
          kind: 'message',
          eventId: message.eventId,
          principal,
          conversation: { ...message.conversation, ...(channelName ? { channelName } : {}) },
          text: message.text,
          mentioned: message.mentioned,
          direct: message.direct,
        };
      },
    });
  };
  app.event('app_mention', onMessage);
  app.event('message', onMessage);

  app.command(deps.slashCommand, async ({ ack, body, respond }) => {
    const parsed = SlashCommandSchema.safeParse(body);
    if (!parsed.success) {
      await ack();
      return logger.warn({}, 'a slash command payload in an unexpected shape');
    }
    const { userId, ...command } = normalizeCommand(parsed.data);
    const followed = followableRespond(parsed.data.response_url, respond, deps.responseUrls, logger);
    const target: EphemeralTarget = {
      channel: command.conversation.channelId,
      user: userId,
      ...(followed ? { respond: followed } : {}),
    };
    await intake.receive({
      name: 'slash command',
      ack: () => ack(),
      reply: (text) => deps.ephemeral(target, text),
      build: async (): Promise<ChatEvent> => ({
        kind: 'command',
        ...command,
        principal: await deps.identity.principal(userId),
      }),
    });
  });

  app.action({ type: 'block_actions', action_id: BUTTON_ACTION_IDS }, async ({ ack, body, respond }) => {
    const parsed = BlockActionsSchema.safeParse(body);
    const normalized = parsed.success ? normalizeBlockAction(parsed.data) : undefined;
    if (!normalized?.ok) {
      await ack();
      return logger.warn({ reason: normalized?.skip ?? 'unexpected shape' }, 'ignored a button click');
    }
    const click = normalized.value;
    if (click.intent.action === 'deny') {
      // Deny asks why first (optional); its submission decides. Without a dialog, the click decides alone.
      await ack();
      const dialog = await openDenyReason(
        app,
        parsed.data?.trigger_id,
        {
          approvalId: click.intent.approvalId,
          channelId: click.conversation.channelId,
          threadTs: click.conversation.threadId ?? click.messageTs,
          ...(click.conversation.channelName ? { channelName: click.conversation.channelName } : {}),
          ...(click.conversation.workspaceId ? { workspaceId: click.conversation.workspaceId } : {}),
          messageTs: click.messageTs,
        },
        logger,
      );
      if (dialog) return;
    }
    const followed = followableRespond(parsed.data?.response_url, respond, deps.responseUrls, logger);
    const target: EphemeralTarget = {
      channel: click.conversation.channelId,
      user: click.userId,
      ...(followed ? { respond: followed } : {}),
      ...(click.conversation.threadId ? { threadTs: click.conversation.threadId } : {}),
    };
    await intake.receive({
      name: 'button',
      ...(click.intent.action === 'deny' ? {} : { ack: () => ack() }),
      reply: (text) => deps.ephemeral(target, text),
      // The router resolves a choice number against the run, and the kernel updates the question's message.
      build: async (): Promise<ChatEvent> => ({
        kind: 'action',
        eventId: click.eventId,
        principal: await deps.identity.principal(click.userId),
        conversation: click.conversation,
        ...actionFromButton(click.intent),
        // The message the button was on, from Slack's signed payload: a card that is gone is closed there.
        messageId: click.messageTs,
      }),
    });
  });
  registerDenyReason(app, deps);
}
