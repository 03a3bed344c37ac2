// The Web API client with a deliberate retry policy: short retries for network and 5xx, 429s left to delivery.
import { webApi } from '@slack/bolt';
import type { Logger } from '../../agent/logger.js';
import { slackLogger } from './slack-logger.js';

export type WebClient = webApi.WebClient;

/**
 * The client's default is 10 retries over about 30 minutes. A post that late is worse than a logged failure, so
 * transient failures get three quick tries; rate limits are handled per message by SlackDelivery instead.
 */
export const TRANSIENT_RETRY_POLICY: webApi.RetryOptions = {
  retries: 2,
  factor: 2,
  minTimeout: 250,
  maxTimeout: 1_000,
  maxRetryTime: 5_000,
  randomize: true,
};

export interface SlackClientOptions {
  token: string;
  /** SLACK_API_URL: an enterprise proxy, or the fake in tests. */
  apiUrl?: string;
  logger: Logger;
}

export function createSlackWebClient(options: SlackClientOptions): WebClient {
  return new webApi.WebClient(options.token, {
    ...slackClientOptions(options.apiUrl),
    logger: slackLogger(options.logger, 'slack-web-api'),
    rejectRateLimitedCalls: true,
  });
}

/** Options shared by every client: Bolt's own, ours, and the Socket Mode connection client. */
export function slackClientOptions(apiUrl: string | undefined) {
  return {
    ...(apiUrl ? { slackApiUrl: withTrailingSlash(apiUrl) } : {}),
    retryConfig: TRANSIENT_RETRY_POLICY,
    timeout: 15_000,
  };
}

/** The client appends the method name to the URL, so `https://proxy/api` must become `https://proxy/api/`. */
export function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
