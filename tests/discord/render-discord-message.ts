// A fake Discord message as a person sees it: its content and embeds as text, its buttons, and who it would ping.

import type { RenderedMessage } from '../chat-port-contract.js';
import type { FakeDiscordMessage } from '../fakes/discord/fake-discord.js';

interface Embed {
  title?: string;
  description?: string;
  fields?: { name: string; value: string }[];
  footer?: { text: string };
}
interface Row {
  components?: { label?: string }[];
}

export function renderDiscordMessage(message: FakeDiscordMessage): RenderedMessage {
  const embeds = message.embeds as Embed[];
  const text = [
    message.content,
    ...embeds.flatMap((embed) => [
      embed.title ?? '',
      embed.description ?? '',
      ...(embed.fields ?? []).flatMap((field) => [field.name, field.value]),
      embed.footer?.text ?? '',
    ]),
  ]
    .filter(Boolean)
    .join('\n');
  const buttons = (message.components as Row[]).flatMap((row) =>
    (row.components ?? []).map((c) => c.label ?? ''),
  );
  return { text, buttons, pings: pingsOf(text, message.allowedMentions) };
}

/** What Discord would notify: with `parse: []` and no ids listed, nobody; otherwise every mention in the text. */
function pingsOf(text: string, allowed: unknown): string[] {
  const rules = allowed as { parse?: string[]; users?: string[]; roles?: string[] } | undefined;
  const mentions = text.match(/@everyone|@here|<@[!&]?\d+>/g) ?? [];
  if (!rules) return mentions;
  const parse = new Set(rules.parse ?? []);
  return mentions.filter((mention) => {
    if (mention === '@everyone' || mention === '@here') return parse.has('everyone');
    if (mention.startsWith('<@&'))
      return parse.has('roles') || (rules.roles ?? []).some((id) => mention.includes(id));
    return parse.has('users') || (rules.users ?? []).some((id) => mention.includes(id));
  });
}
