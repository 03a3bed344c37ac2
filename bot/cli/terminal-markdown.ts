// Markdown from the model, rendered for a terminal: bold, code, headings, lists, links and tables, never raw.
import { bold, cyan, dim, withoutColour } from './terminal-colors.js';

const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

export function renderMarkdown(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const out: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      const end = lines.findIndex((candidate, at) => at > index && candidate.trim().startsWith(fence[1]!));
      const stop = end === -1 ? lines.length : end;
      for (const code of lines.slice(index + 1, stop)) out.push(`    ${cyan(code)}`);
      index = stop;
      continue;
    }
    if (TABLE_ROW.test(line) && TABLE_RULE.test(lines[index + 1] ?? '')) {
      let end = index + 2;
      while (end < lines.length && TABLE_ROW.test(lines[end]!)) end++;
      out.push(...renderTable(lines[index]!, lines.slice(index + 2, end)));
      index = end - 1;
      continue;
    }
    out.push(renderLine(line));
  }
  return out.join('\n');
}

function renderLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return bold(inline(heading[1]!));
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1]}  • ${inline(bullet[2]!)}`;
  const numbered = /^(\s*)(\d+)[.)]\s+(.*)$/.exec(line);
  if (numbered) return `${numbered[1]}  ${numbered[2]}. ${inline(numbered[3]!)}`;
  const quote = /^\s*>\s?(.*)$/.exec(line);
  if (quote) return dim(`  │ ${inline(quote[1]!)}`);
  if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return dim('─'.repeat(40));
  return inline(line);
}

/** Emphasis, code and links inside a line; code spans are kept as they are. */
export function inline(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (part.length > 2 && part.startsWith('`') && part.endsWith('`')) return cyan(part.slice(1, -1));
      return part
        .replace(/\[([^\]]+)\]\((\S+?)\)/g, (_match, label: string, url: string) =>
          label === url ? url : `${label} (${url})`,
        )
        .replace(/\*\*(\S(?:.*?\S)?)\*\*/g, (_match, inner: string) => bold(inner))
        .replace(
          /(^|[^\w])__(\S(?:.*?\S)?)__(?=[^\w]|$)/g,
          (_match, before: string, inner: string) => `${before}${bold(inner)}`,
        )
        .replace(/(^|[^\w*])\*(\S(?:[^*]*?\S)?)\*(?=[^\w*]|$)/g, '$1$2')
        .replace(/(^|[^\w])_(\S(?:[^_]*?\S)?)_(?=[^\w]|$)/g, '$1$2');
    })
    .join('');
}

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => inline(cell.trim().replace(/\\\|/g, '|')));
}

/** Visible width: colour codes take no room. */
function width(text: string): number {
  return withoutColour(text).length;
}

function renderTable(headerRow: string, bodyRows: string[]): string[] {
  const header = cells(headerRow);
  const body = bodyRows.map(cells);
  const columns = Math.max(header.length, ...body.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) =>
    Math.max(...[header, ...body].map((row) => width(row[column] ?? ''))),
  );
  const format = (row: string[]) =>
    `  ${widths
      .map((size, column) => {
        const cell = row[column] ?? '';
        return cell + ' '.repeat(size - width(cell));
      })
      .join('  ')
      .trimEnd()}`;
  return [
    bold(format(header)),
    dim(`  ${widths.map((size) => '─'.repeat(size)).join('  ')}`),
    ...body.map(format),
  ];
}
