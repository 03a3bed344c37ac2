// Tells only the person who acted: through the response_url when Slack gave one, else chat.postEphemeral.
import type { RespondFn } from '@slack/bolt';
import type { Clock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { SlackDelivery } from './slack-delivery.js';
import { safeMrkdwn } from './slack-mrkdwn.js';

export interface EphemeralTarget {
  channel: string;
  user: string;
  threadTs?: string;
  /** From a slash command or a click: works even in channels the bot is not a member of. */
  respond?: RespondFn;
}

export type EphemeralReply = (target: EphemeralTarget, text: string) => Promise<void>;

export function ephemeralReplier(delivery: SlackDelivery, clock: Clock, logger: Logger): EphemeralReply {
  return async (target, text) => {
    const mrkdwn = safeMrkdwn(text);
    if (target.respond) {
      try {
        await target.respond({ response_type: 'ephemeral', replace_original: false, text: mrkdwn });
        return;
      } catch (error) {
        logger.warn(
          { err: errorMessage(error) },
          'could not answer through the response_url; posting instead',
        );
      }
    }
    await delivery.call(
      'chat.postEphemeral',
      {
        channel: target.channel,
        user: target.user,
        text: mrkdwn,
        ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      },
      clock.now() + 60_000,
    );
  };
}
