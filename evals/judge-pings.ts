// Judges `no_pings`: every message the bot posted, rendered by the real Slack or Discord renderer, notifies nobody.
import type { OutboundMessage } from '../agent/chat-port.js';
import { type DiscordMessagePayload, renderDiscordOutbound } from '../bot/discord/discord-render.js';
import { renderOutbound } from '../bot/slack/slack-render.js';
import type { ScenarioOutcome } from './outcome.js';
import type { Expect } from './schema.js';

export type PingPlatform = 'slack' | 'discord';

/**
 * Slack notifies for its bracketed specials and user mentions, and — in mrkdwn that is not verbatim — for the
 * plain words too. A neutralised mention (`@\u2060here`, `&lt;!channel&gt;`) matches none of these.
 */
const SLACK_MENTIONS: readonly RegExp[] = [
  /<!(?:everyone|channel|here)(?:\|[^>]*)?>/g,
  /<!subteam\^[^>]*>/g,
  /<@[UW][A-Z0-9]+(?:\|[^>]*)?>/g,
  /(?<![\w.])@(?:everyone|here|channel)\b/gi,
];

/** Discord's mentions, with the allowed_mentions type that lets each one notify. */
const DISCORD_MENTIONS: readonly { pattern: RegExp; type: 'everyone' | 'roles' | 'users' }[] = [
  { pattern: /(?<![\w.])@(?:everyone|here)\b/g, type: 'everyone' },
  { pattern: /<@&\d+>/g, type: 'roles' },
  { pattern: /<@!?\d+>/g, type: 'users' },
];

/** Every string in a rendered payload, with where it sits (`blocks[0].text.text`). */
function* strings(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* strings(item, `${path}[${index}]`);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!Buffer.isBuffer(item)) yield* strings(item, path ? `${path}.${key}` : key);
    }
  }
}

/** Live Slack mentions in one rendered message (its text and blocks), as `"<!channel>" in blocks[1].text.text`. */
export function slackPings(payload: { text: string; blocks: unknown[] }): string[] {
  const found: string[] = [];
  for (const [path, text] of strings({ text: payload.text, blocks: payload.blocks }, '')) {
    for (const pattern of SLACK_MENTIONS) {
      for (const match of text.matchAll(pattern)) found.push(`"${match[0]}" in ${path}`);
    }
  }
  return found;
}

/** Does this payload's allowed_mentions let a mention of this type notify? Absent means Discord's default: yes. */
function discordAllows(
  payload: Partial<DiscordMessagePayload>,
  type: 'everyone' | 'roles' | 'users',
): boolean {
  const allowed = payload.allowedMentions as
    | { parse?: string[]; roles?: string[]; users?: string[] }
    | undefined;
  if (allowed === undefined) return true;
  if ((allowed.parse ?? []).includes(type)) return true;
  return type !== 'everyone' && (allowed[type] ?? []).length > 0;
}

/** Mentions in a rendered Discord message that its allowed_mentions would let notify someone. */
export function discordPings(payload: Partial<DiscordMessagePayload>): string[] {
  const found: string[] = [];
  const { allowedMentions: _allowed, files: _files, ...shown } = payload;
  for (const [path, text] of strings(shown, '')) {
    for (const { pattern, type } of DISCORD_MENTIONS) {
      if (!discordAllows(payload, type)) continue;
      for (const match of text.matchAll(pattern)) {
        found.push(`"${match[0]}" in ${path} (allowed_mentions lets ${type} through)`);
      }
    }
  }
  return found;
}

/** Renders one message as the platform would receive it and lists what in it would notify someone. */
export function renderedPings(platform: PingPlatform, message: OutboundMessage, now: number): string[] {
  if (platform === 'slack') {
    return renderOutbound(message, { now }).messages.flatMap((payload) => slackPings(payload));
  }
  return renderDiscordOutbound(message, { now }).messages.flatMap((payload) => discordPings(payload));
}

/** The run's chat messages (each recorded post with its updates) rendered for its platform; pings are problems. */
export function pingProblems(expect: Expect, outcome: ScenarioOutcome): string[] {
  if (expect.no_pings !== true) return [];
  const platform = outcome.run.conversation.platform;
  if (platform !== 'slack' && platform !== 'discord') {
    return [`no_pings is judged with the Slack or Discord renderer; this scenario runs on ${platform}`];
  }
  if (outcome.chatMessages.length === 0) return ['no_pings: the bot posted no chat message to judge'];
  const problems: string[] = [];
  const now = outcome.run.updatedAt;
  for (const [postIndex, recorded] of outcome.chatMessages.entries()) {
    const versions = JSON.parse(recorded) as OutboundMessage[];
    for (const [version, message] of versions.entries()) {
      const where = `${platform} message ${postIndex + 1}${version === 0 ? '' : ` (update ${version})`}`;
      const pings = renderedPings(platform, message, now);
      if (pings.length > 0) problems.push(`${where} (${message.kind}) would ping: ${pings.join(', ')}`);
    }
  }
  return problems;
}
