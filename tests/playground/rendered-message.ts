// What a person sees of a playground message: the page's own renderer, read back as text, buttons and pings.

import type { PlaygroundMessage } from '../../bot/playground/playground-store.js';
import { presentMessage } from '../../bot/playground/playground-view.js';
import { renderMessage } from '../../bot/playground/public/render.js';
import type { RenderedMessage } from '../chat-port-contract.js';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ENTITIES[name]!);
}

/** Strips tags as a browser shows them: block ends and <br> become line breaks. */
export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<svg[\s\S]*?<\/svg>/g, '')
      .replace(/<br\s*\/?>|<\/(p|li|tr|pre|div|dd|dt|h\d)>/g, '\n')
      .replace(/<\/t[dh]>/g, ' ')
      .replace(/<[^>]+>/g, ''),
  );
}

/** The message as the server sends it to the page (with its view as of `now`), rendered by the page's code. */
export function inspectRendered(
  message: PlaygroundMessage,
  users: string[] = [],
  now = Date.now(),
): RenderedMessage {
  const html = renderMessage(presentMessage(message, now), { now, users, botName: 'opsbot' });
  const buttons = [...html.matchAll(/<button [^>]*data-action="press"[^>]*>([\s\S]*?)<\/button>/g)].map(
    (match) => htmlToText(match[1]!).trim(),
  );
  const pings = [...html.matchAll(/data-ping="([^"]*)"/g)].map((match) => decodeEntities(match[1]!));
  return { text: htmlToText(html), buttons, pings };
}
