// An approval grant in words, the same on every surface: the CLI's table, chat's list, and the kernel's replies.
import { formatClock } from '../run-state-words.js';
import type { Grant } from './approval-grants.js';
import { describePattern } from './grant-patterns.js';

/** The arguments the grant covers, as one line of JSON: the redacted copy where there is one. */
export function grantArgumentsText(grant: Pick<Grant, 'args' | 'displayArgs'>): string {
  return JSON.stringify(grant.displayArgs ?? JSON.parse(grant.args));
}

/** Where the grant holds: `#ops`, or `slack:C0OPS` when the channel's name was not known. */
export function grantChannelText(channel: Grant['channel']): string {
  return channel.channelName ? `#${channel.channelName}` : `${channel.platform}:${channel.channelId}`;
}

/**
 * What the grant lets run unasked: `restart_service {"service":"api"} for Alice in #ops`, or with a pattern
 * `restart_service {"service":"api"} but any service in api, worker for Alice in #ops`. Chat shows the
 * arguments as code, so `showArguments` may wrap them.
 */
export function grantScopeText(
  grant: Grant,
  showArguments: (json: string) => string = (json) => json,
): string {
  const widened = grant.pattern ? ` but ${describePattern(grant.pattern)}` : '';
  return (
    `${grant.tool} ${showArguments(grantArgumentsText(grant))}${widened} for ${grant.requester.displayName} ` +
    `in ${grantChannelText(grant.channel)}`
  );
}

/** Said after a grant is ended early, so the person sees what will now wait for an approver again. */
export function grantEndedText(grant: Grant, showArguments?: (json: string) => string): string {
  return `It covered ${grantScopeText(grant, showArguments)}, until ${formatClock(grant.until)}; those calls wait for an approver again.`;
}
