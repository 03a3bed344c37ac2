// Which response_urls opsbot follows: only Slack's own hooks hosts, or the origin of SLACK_API_URL when it is set.
// A signed payload can still carry any URL (a forwarded or replayed body, a compromised app config), and
// following it blindly turns the bot into a POST proxy onto the local network.
import type { RespondFn } from '@slack/bolt';
import type { Logger } from '../../agent/logger.js';

/** Slack's documented response_url hosts (commercial and GovSlack), https only. */
const SLACK_HOOK_HOSTS = new Set(['hooks.slack.com', 'hooks.slack-gov.com']);

export interface ResponseUrlPolicy {
  /** The origin of SLACK_API_URL (a self-hosted gateway or a test fake), also followed when set. */
  apiOrigin?: string;
}

export function responseUrlPolicy(slackApiUrl: string | undefined): ResponseUrlPolicy {
  return slackApiUrl ? { apiOrigin: new URL(slackApiUrl).origin } : {};
}

/** Why a response_url is not followed, or undefined when it may be. */
export function refusedResponseUrl(url: string, policy: ResponseUrlPolicy): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'it is not a URL';
  }
  if (policy.apiOrigin && parsed.origin === policy.apiOrigin) return undefined;
  if (parsed.protocol === 'https:' && SLACK_HOOK_HOSTS.has(parsed.hostname) && parsed.port === '') {
    return undefined;
  }
  const allowed = [...SLACK_HOOK_HOSTS, ...(policy.apiOrigin ? [policy.apiOrigin] : [])].join(', ');
  return `its host ${parsed.host || '(none)'} is not Slack's (only ${allowed})`;
}

/**
 * Bolt's respond() for this payload when its response_url may be followed; otherwise undefined, so the reply goes
 * by chat.postEphemeral to the Slack API instead, and nothing is lost.
 */
export function followableRespond(
  responseUrl: string | undefined,
  respond: RespondFn | undefined,
  policy: ResponseUrlPolicy,
  logger: Logger,
): RespondFn | undefined {
  if (!responseUrl || !respond) return undefined;
  const refused = refusedResponseUrl(responseUrl, policy);
  if (refused === undefined) return respond;
  logger.warn({ reason: refused }, 'a Slack payload carried a response_url that is not followed');
  return undefined;
}
