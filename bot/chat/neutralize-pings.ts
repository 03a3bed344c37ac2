// Model and tool text must never notify anyone: every platform's mention syntax is made inert, visibly unchanged.

/** U+2060 WORD JOINER: invisible, keeps the text readable, and breaks the token a platform reads as a mention. */
export const JOINER = '\u2060';

/**
 * `@everyone`, `@here`, `@channel` (plain forms ping where a client parses names, and always on Discord), and
 * the bracketed forms: Slack's `<!channel>`, `<!here>`, `<!subteam^…>`, `<@U…>`, and Discord's `<@123>`,
 * `<@!123>`, `<@&123>`. Idempotent: neutral text stays as it is.
 */
export function neutralizePings(text: string): string {
  return text
    .replace(/(?<![\w.])@(everyone|here|channel)\b/gi, `@${JOINER}$1`)
    .replace(/<([@!])(?!\u2060)/g, `<$1${JOINER}`);
}

/** Text fit for a chat view: no pings, and no control characters (which would confuse adapters' own markers). */
export function inert(text: string): string {
  return neutralizePings(text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, ''));
}
