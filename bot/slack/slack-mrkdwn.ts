// Markdown from the model and tools, turned into Slack mrkdwn that shows the same text and can never ping anyone.

import { neutralizePings } from '../chat/neutralize-pings.js';

/** Markers that cannot occur in input: control characters are stripped before conversion. */
const BOLD = '\u0001';
const LINK = '\u0002';

/** Slack has exactly three control characters in text; escaping them turns `<!channel>` into plain text. */
export function escapeText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Our own text (router replies, names): no Markdown conversion, but escaped and inert. */
export function safeMrkdwn(text: string): string {
  return neutralizePings(escapeText(stripControl(text)));
}

/** For `plain_text` objects, which Slack does not parse for mentions but clients may still link names in. */
export function safePlainText(text: string): string {
  return neutralizePings(stripControl(text));
}

/** Model or tool Markdown to mrkdwn: escaped, pings neutralized, emphasis, links, headings and lists converted. */
export function markdownToMrkdwn(markdown: string): string {
  return splitCode(stripControl(markdown))
    .map((segment) => (segment.code ? codeSegment(segment.text) : proseSegment(segment.text)))
    .join('');
}

function stripControl(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '');
}

interface Segment {
  text: string;
  code: boolean;
}

/** Code spans and fenced blocks are shown verbatim; only the prose around them is converted. */
function splitCode(text: string): Segment[] {
  const segments: Segment[] = [];
  const pattern = /```[\s\S]*?```|`[^`\n]+`/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) segments.push({ text: text.slice(last, match.index), code: false });
    segments.push({ text: match[0], code: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last), code: false });
  return segments;
}

function codeSegment(code: string): string {
  // Slack shows a fence's language tag as a first line of code, so drop it.
  const body = code.startsWith('```') ? code.replace(/^```[\w+#.-]*\n/, '```\n') : code;
  return neutralizePings(escapeText(body));
}

function proseSegment(prose: string): string {
  const links: string[] = [];
  let text = escapeText(prose).replace(
    /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g,
    (_match, label: string, url: string) => {
      links.push(`<${url}|${neutralizePings(label.replaceAll('|', '¦'))}>`);
      return `${LINK}${links.length - 1}${LINK}`;
    },
  );
  text = text
    .replace(/^#{1,6}\s+(.+?)\s*#*$/gm, `${BOLD}$1${BOLD}`)
    .replace(/^(\s*)[-*+]\s+/gm, '$1• ')
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/(^|[^\w])__(?=\S)([^\n]*?\S)__(?!\w)/g, `$1${BOLD}$2${BOLD}`)
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/g, '$1_$2_')
    .replace(/~~(?=\S)([^\n]*?\S)~~/g, '~$1~')
    .replaceAll(BOLD, '*');
  return neutralizePings(text).replace(
    new RegExp(`${LINK}(\\d+)${LINK}`, 'g'),
    (_match, index: string) => links[Number(index)] ?? '',
  );
}
