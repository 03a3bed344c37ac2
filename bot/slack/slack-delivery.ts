// Sends Web API calls with pacing and 429 handling bounded by a deadline, so late messages are dropped, not sent.
import { webApi } from '@slack/bolt';
import type { Clock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import { type ChannelPacer, realSleep } from './channel-pacer.js';
import type { WebClient } from './slack-web-client.js';

export type SlackResult = webApi.WebAPICallResult & Record<string, unknown>;

export interface DeliveryOptions {
  client: WebClient;
  clock: Clock;
  logger: Logger;
  pacer?: ChannelPacer;
  sleep?: (ms: number) => Promise<void>;
  /** Rate-limit waits per call before giving up. */
  maxRateLimitWaits?: number;
}

/** A message that could not be delivered in time; the run records it instead of retrying the action. */
export class SlackDeliveryError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SlackDeliveryError';
  }
}

export class SlackDelivery {
  readonly client: WebClient;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: DeliveryOptions) {
    this.client = options.client;
    this.sleep = options.sleep ?? realSleep;
  }

  /**
   * Calls a method, waiting out 429s while the wait still ends before `deadline` (on the injected clock).
   * `paceChannel` paces message posts to that channel.
   */
  async call(
    method: string,
    args: Record<string, unknown>,
    deadline: number,
    paceChannel?: string,
  ): Promise<SlackResult> {
    const { clock, logger } = this.options;
    const maxWaits = this.options.maxRateLimitWaits ?? 4;
    for (let waits = 0; ; waits++) {
      if (paceChannel) await this.options.pacer?.wait(paceChannel);
      try {
        return (await this.client.apiCall(method, args)) as SlackResult;
      } catch (error) {
        const retryAfterMs = rateLimitWait(error);
        if (retryAfterMs === undefined) throw error;
        const late = clock.now() + retryAfterMs > deadline;
        if (late || waits >= maxWaits) {
          throw new SlackDeliveryError(
            `Slack rate-limited ${method}${late ? '; waiting would deliver it too late' : ` ${waits + 1} times`}, so it was not sent`,
            { cause: error },
          );
        }
        logger.info({ method, retryAfterMs }, 'Slack rate limit: waiting before retrying');
        await this.sleep(retryAfterMs);
      }
    }
  }
}

function rateLimitWait(error: unknown): number | undefined {
  if (!(error instanceof Error) || !('code' in error) || error.code !== webApi.ErrorCode.RateLimitedError)
    return undefined;
  const seconds = (error as webApi.WebAPIRateLimitedError).retryAfter;
  return Math.max(0, seconds) * 1000;
}
