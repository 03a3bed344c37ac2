// Channel names for channel rules written as `#ops`: events carry only ids, so names are looked up and cached.

import { z } from 'zod';
import type { Clock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { TtlCache } from '../chat/ttl-cache.js';
import type { WebClient } from './slack-web-client.js';

const ConversationInfoSchema = z.object({ channel: z.object({ name: z.string().optional() }) });

/** After a failed lookup, how long the channel goes without a name before Slack is asked again. */
const FAILURE_TTL_MS = 30_000;

export class SlackChannelNames {
  private readonly cache: TtlCache<string | undefined>;

  constructor(
    private readonly client: Pick<WebClient, 'apiCall'>,
    clock: Clock,
    private readonly logger: Logger,
    ttlMs = 10 * 60_000,
  ) {
    this.cache = new TtlCache(clock, ttlMs);
  }

  /** The name without `#`, or undefined for DMs and channels we cannot read (rules by id still apply). */
  async name(channelId: string): Promise<string | undefined> {
    if (channelId.startsWith('D')) return undefined;
    try {
      return await this.cache.get(channelId, async () => {
        const info = ConversationInfoSchema.parse(
          await this.client.apiCall('conversations.info', { channel: channelId }),
        );
        return info.channel.name;
      });
    } catch (error) {
      this.logger.warn({ channelId, err: errorMessage(error) }, 'could not read a Slack channel name');
      // Not asked again for a while: a missing `channels:read` scope must not cost a Web API call per message.
      this.cache.set(channelId, undefined, FAILURE_TTL_MS);
      return undefined;
    }
  }
}
