// `opsbot mcp list` as the terminal shows it (a section per server, a row per tool) and as `--json` gives it.

import { readableUtc } from '../../../agent/utc-time.js';
import type { McpToolReview, McpToolStanding } from '../../../tools/mcp/mcp-tool-review.js';
import { green, red, yellow } from '../terminal-output.js';
import type { McpInspection, McpServerStatus } from './mcp-inspection.js';

// Server and tool text can carry terminal escape sequences and newlines; a cell keeps to one line.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

export function cell(text: string, max = 60): string {
  const clean = text.replace(CONTROL, ' ');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** The pin state in words: what opsbot does with the tool, and for a held-back one what to run. */
export function standingText(standing: McpToolStanding): string {
  switch (standing.kind) {
    case 'trusted':
      return `trusted (by ${standing.by}, ${readableUtc(standing.at)})`;
    case 'trusted_when_seen':
      return standing.by === 'first sight'
        ? 'trusted at first sight (no pins yet: pinned as listed when opsbot connects)'
        : 'new, trusted by trust_new_tools (pinned as listed when opsbot connects)';
    case 'changed':
      return `changed: ${standing.fields.map(fieldWords).join(', ')} (held back)`;
    case 'new':
      return 'new (held back until trusted)';
    case 'left_out':
      return 'left out by include/exclude';
    case 'refused_name':
      return `refused name: ${standing.message}`;
    case 'refused_definition':
      return `refused definition: ${standing.problem}`;
  }
}

function fieldWords(field: string): string {
  return field === 'inputSchema' ? 'input schema' : field;
}

function paintStanding(standing: McpToolStanding, text: string): string {
  if (standing.kind === 'trusted' || standing.kind === 'trusted_when_seen') return green(text);
  if (standing.kind === 'left_out') return text;
  return standing.kind === 'changed' || standing.kind === 'new' ? yellow(text) : red(text);
}

function serverLine(server: McpServerStatus, reviews: readonly McpToolReview[]): string {
  if (server.state === 'down') {
    return `${server.name}: ${red('down')} since ${readableUtc(server.since)}: ${cell(server.reason, 300)}`;
  }
  const held = reviews.filter(
    (review) => review.standing.kind === 'changed' || review.standing.kind === 'new',
  );
  const count = `${reviews.length} ${reviews.length === 1 ? 'tool' : 'tools'}`;
  const review = held.length > 0 ? yellow(`, ${held.length} held back: opsbot mcp diff ${server.name}`) : '';
  return `${server.name}: ${green('up')}, ${count}${review}`;
}

/** Whether the standing depends on the pins: a tool left out or refused is so whatever is pinned. */
function readsPins(standing: McpToolStanding): boolean {
  return ['trusted', 'trusted_when_seen', 'changed', 'new'].includes(standing.kind);
}

/** The pin state of a tool that depends on its pins when they could not be read (config check without a Store). */
export const PINS_UNKNOWN = 'unknown (store not opened)';

/** A row per tool: its name, risk, the risk's source and pin state; `indent` spaces before each. */
export function toolTable(reviews: readonly McpToolReview[], pinsRead = true, indent = 2): string[] {
  const header = ['tool', 'risk', 'risk from', 'pin'];
  const rows = reviews.map((review) => [
    cell(review.name, 70),
    review.risk?.risk ?? '-',
    review.risk?.source ?? '-',
    pinsRead || !readsPins(review.standing) ? cell(standingText(review.standing), 200) : PINS_UNKNOWN,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (row: string[], paint: (text: string) => string = (text) => text) =>
    `${' '.repeat(indent)}${row
      .map((text, column) => (column === row.length - 1 ? paint(text) : text.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd()}`;
  return [
    line(header),
    ...rows.map((row, index) =>
      line(row, (text) =>
        pinsRead || !readsPins(reviews[index]!.standing)
          ? paintStanding(reviews[index]!.standing, text)
          : yellow(text),
      ),
    ),
  ];
}

export function formatMcpList(inspection: McpInspection): string {
  if (inspection.servers.length === 0) return 'No MCP servers are configured (mcp.servers in opsbot.yaml).';
  const sections = inspection.servers.map((server) => {
    const reviews = inspection.reviews.filter((review) => review.server === server.name);
    const lines = [serverLine(server, reviews)];
    if (server.state === 'up')
      lines.push(...(reviews.length > 0 ? toolTable(reviews) : ['  (lists no tools)']));
    return lines.join('\n');
  });
  return sections.join('\n\n');
}

/** The same as data, for scripts: one entry per server, each tool with its risk, its source and its pin state. */
export function mcpListJson(inspection: McpInspection): unknown {
  return {
    servers: inspection.servers.map((server) => ({
      name: server.name,
      ...(server.state === 'up'
        ? { state: 'up' }
        : { state: 'down', since: new Date(server.since).toISOString(), reason: server.reason }),
      tools: inspection.reviews
        .filter((review) => review.server === server.name)
        .map((review) => ({
          name: review.name,
          tool: review.tool,
          risk: review.risk?.risk ?? null,
          riskSource: review.risk?.source ?? null,
          pin: pinJson(review.standing),
        })),
    })),
  };
}

function pinJson(standing: McpToolStanding): Record<string, unknown> {
  switch (standing.kind) {
    case 'trusted':
      return { state: 'trusted', trustedBy: standing.by, trustedAt: new Date(standing.at).toISOString() };
    case 'trusted_when_seen':
      return { state: 'trusted', trustedBy: standing.by, pinned: false };
    case 'changed':
      return { state: 'changed', fields: standing.fields, reason: standing.refusal };
    case 'new':
      return { state: 'new', reason: standing.refusal };
    case 'left_out':
      return { state: 'left_out' };
    case 'refused_name':
      return { state: 'refused_name', reason: standing.message };
    case 'refused_definition':
      return { state: 'refused_definition', reason: standing.problem };
  }
}
