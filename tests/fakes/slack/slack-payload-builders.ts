// Payloads as Slack sends them: Events API callbacks, slash command fields and block_actions clicks.
import { FAKE_BOT, type FakeMessage, type FakeView } from './fake-slack-state.js';

const VERIFICATION_TOKEN = 'legacy-verification-token';
const APP_ID = 'A0FAKE';

export function eventCallback(event: Record<string, unknown>, eventId: string, eventTimeMs: number) {
  return {
    token: VERIFICATION_TOKEN,
    team_id: FAKE_BOT.teamId,
    api_app_id: APP_ID,
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(eventTimeMs / 1000),
    event: { event_ts: event.ts, ...event },
  };
}

/** Form fields over HTTP; the same object as JSON in a Socket Mode envelope. */
export function slashCommand(options: {
  command: string;
  user: string;
  text: string;
  channel: string;
  channelName: string;
  triggerId: string;
  responseUrl: string;
}): Record<string, string> {
  return {
    token: VERIFICATION_TOKEN,
    team_id: FAKE_BOT.teamId,
    team_domain: 'fake',
    channel_id: options.channel,
    channel_name: options.channelName,
    user_id: options.user,
    user_name: options.user.toLowerCase(),
    command: options.command,
    text: options.text,
    api_app_id: APP_ID,
    response_url: options.responseUrl,
    trigger_id: options.triggerId,
  };
}

export interface FakeButton {
  type: 'button';
  action_id: string;
  block_id?: string;
  value: string;
  text: { type: string; text: string };
}

/** The buttons on a message the bot posted, each with its block's id. */
export function buttonsOf(message: FakeMessage): FakeButton[] {
  const blocks = message.blocks as Array<{ type: string; block_id?: string; elements?: FakeButton[] }>;
  return blocks.flatMap((block) =>
    block.type === 'actions'
      ? (block.elements ?? [])
          .filter((element) => element.type === 'button')
          .map((element) => ({ ...element, ...(block.block_id ? { block_id: block.block_id } : {}) }))
      : [],
  );
}

/** A click on one of the bot's buttons, carrying the message as the clicker's client showed it. */
export function blockActions(options: {
  user: string;
  message: FakeMessage;
  button: FakeButton;
  channelName: string;
  triggerId: string;
  actionTs: string;
  responseUrl: string;
}) {
  const { message, button, user } = options;
  const thread = message.thread_ts ? { thread_ts: message.thread_ts } : {};
  return {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: FAKE_BOT.teamId },
    api_app_id: APP_ID,
    token: VERIFICATION_TOKEN,
    container: {
      type: 'message',
      message_ts: message.ts,
      channel_id: message.channel,
      is_ephemeral: false,
      ...thread,
    },
    trigger_id: options.triggerId,
    team: { id: FAKE_BOT.teamId, domain: 'fake' },
    channel: { id: message.channel, name: options.channelName },
    message: {
      type: 'message',
      ts: message.ts,
      ...thread,
      text: message.text,
      blocks: message.blocks,
      user: message.user,
      bot_id: message.bot_id,
    },
    response_url: options.responseUrl,
    actions: [
      {
        type: 'button',
        action_id: button.action_id,
        block_id: button.block_id,
        text: button.text,
        value: button.value,
        action_ts: options.actionTs,
      },
    ],
  };
}

/** A submitted modal, as Slack sends it: each input's value under state.values[block_id][action_id]. */
export function viewSubmission(options: {
  user: string;
  view: FakeView;
  values: Record<string, Record<string, string | null>>;
  triggerId: string;
}) {
  const { view } = options.view;
  const values = Object.fromEntries(
    Object.entries(options.values).map(([block, inputs]) => [
      block,
      Object.fromEntries(
        Object.entries(inputs).map(([action, value]) => [action, { type: 'plain_text_input', value }]),
      ),
    ]),
  );
  return {
    type: 'view_submission',
    team: { id: FAKE_BOT.teamId, domain: 'fake' },
    user: { id: options.user, username: options.user.toLowerCase(), team_id: FAKE_BOT.teamId },
    api_app_id: APP_ID,
    token: VERIFICATION_TOKEN,
    trigger_id: options.triggerId,
    view: {
      id: options.view.id,
      team_id: FAKE_BOT.teamId,
      type: 'modal',
      callback_id: view.callback_id,
      private_metadata: view.private_metadata ?? '',
      title: view.title,
      blocks: view.blocks,
      state: { values },
      hash: `${options.view.id}.hash`,
      app_id: APP_ID,
      bot_id: FAKE_BOT.botId,
    },
    response_urls: [],
  };
}
