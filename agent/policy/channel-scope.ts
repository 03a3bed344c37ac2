// Where a rule applies: channels named in settings by id or #name, matched against the conversation's channel.
import type { Conversation } from '../conversation.js';
import type { ChannelSettings, PermissionSettings, RoleSettings } from './permission-settings.js';

export interface Place {
  conversation: Conversation;
  /** The channel's name (with or without #); falls back to `conversation.channelName`. Settings say `#name`. */
  channelName?: string;
}

/** Channel names are case-insensitive on both platforms; ids are compared exactly. */
function normalize(reference: string): string {
  return reference.startsWith('#') ? reference.toLowerCase() : reference;
}

function hashName(place: Place): string | undefined {
  const name = place.channelName ?? place.conversation.channelName;
  if (!name) return undefined;
  return `#${name.replace(/^#/, '')}`.toLowerCase();
}

export function isThisChannel(reference: string, place: Place): boolean {
  const wanted = normalize(reference);
  return wanted === place.conversation.channelId || wanted === hashName(place);
}

/** How to name the place to a person: #name when known, else the id. */
export function channelLabel(place: Place): string {
  return hashName(place) ?? `this channel (${place.conversation.channelId})`;
}

export function roleAppliesIn(role: RoleSettings, place: Place): boolean {
  return role.channels === undefined || role.channels.some((channel) => isThisChannel(channel, place));
}

/** The key of the rule for channels that have none of their own. */
export const OTHER_CHANNELS = '*';

/**
 * The channel rules for this place: every rule naming it by id or #name (all of them narrow), or the `*` rule
 * when none does, so "danger only in #ops" is `*: {risks: [read, write]}` plus `#ops: {}`.
 */
export function channelRulesFor(
  settings: PermissionSettings,
  place: Place,
): Array<[reference: string, rule: ChannelSettings]> {
  const own = Object.entries(settings.channels).filter(([reference]) => isThisChannel(reference, place));
  if (own.length > 0 || !Object.hasOwn(settings.channels, OTHER_CHANNELS)) return own;
  return [[OTHER_CHANNELS, settings.channels[OTHER_CHANNELS]!]];
}
