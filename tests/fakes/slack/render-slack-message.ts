// Reads a Block Kit message the way a person sees it: plain text, button labels, and the pings it would send.
import type { RenderedMessage } from '../../chat-port-contract.js';

interface TextObject {
  type?: string;
  text?: string;
}
interface Block {
  type: string;
  text?: TextObject;
  fields?: TextObject[];
  // Buttons carry their label in a text object; context elements carry text directly.
  elements?: Array<{ type: string; text?: string | TextObject }>;
  accessory?: { type: string; text?: TextObject };
}

const PINGS = [
  /<!(channel|here|everyone)(\|[^>]*)?>/g,
  /<@[UWB][A-Z0-9]+(\|[^>]*)?>/g,
  /<!subteam\^[A-Z0-9]+(\|[^>]*)?>/g,
  // Plain forms ping when a client parses names (link_names); count them too.
  /(?<![\w\u2060])@(everyone|here|channel)\b/g,
];

export function renderSlackMessage(message: { text: string; blocks: unknown[] }): RenderedMessage {
  const raw: string[] = [];
  const buttons: string[] = [];
  for (const block of message.blocks as Block[]) {
    if (block.text?.text) raw.push(block.text.text);
    for (const field of block.fields ?? []) if (field.text) raw.push(field.text);
    if (block.accessory?.type === 'button' && block.accessory.text?.text)
      buttons.push(block.accessory.text.text);
    for (const element of block.elements ?? []) {
      if (element.type === 'button') {
        const label = typeof element.text === 'object' ? element.text.text : undefined;
        if (label) buttons.push(label);
      } else if (typeof element.text === 'string') {
        raw.push(element.text);
      }
    }
  }
  if (message.blocks.length === 0) raw.push(message.text);
  const pings = [message.text, ...raw].flatMap((text) =>
    PINGS.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[0])),
  );
  return { text: raw.map(readable).join('\n'), buttons, pings };
}

/** Slack's markup as shown: date fallbacks, link labels, then the three escaped characters. */
export function readable(mrkdwn: string): string {
  return mrkdwn
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, '$1')
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, '$2')
    .replace(/<(https?:[^>]+)>/g, '$1')
    .replace(/<@(\w+)(\|[^>]*)?>/g, '@$1')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}
