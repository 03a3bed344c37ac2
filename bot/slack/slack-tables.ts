// Tool results that are tables (disks, processes) as readable fields or aligned monospace columns, not JSON.
import type { types } from '@slack/bolt';
import { clip, SLACK_LIMITS, splitMrkdwn } from './slack-limits.js';
import { markdownToMrkdwn, safeMrkdwn } from './slack-mrkdwn.js';

type Row = Record<string, unknown>;
export interface Table {
  title: string;
  rows: Row[];
}
export interface ResultDetail {
  tool: string;
  summary: string;
  data?: unknown;
}

const MAX_ROWS = 40;
const MAX_COLUMNS = 8;
const MAX_CELL = 40;

/** The tables in a tool's data: the data itself when it is a list of rows, or each such list inside it. */
export function findTables(detail: ResultDetail): Table[] {
  if (isRowList(detail.data)) return [{ title: detail.tool, rows: detail.data }];
  if (!isPlainObject(detail.data)) return [];
  return Object.entries(detail.data)
    .filter((entry): entry is [string, Row[]] => isRowList(entry[1]))
    .map(([key, rows]) => ({ title: key, rows }));
}

/** Blocks for one tool's details: its summary, then each table. */
export function detailBlocks(detail: ResultDetail): types.KnownBlock[] {
  const tables = findTables(detail);
  if (tables.length === 0) return [];
  const blocks: types.KnownBlock[] = [
    {
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: clip(`*${detail.tool}*: ${markdownToMrkdwn(detail.summary)}`, 3000) },
      ],
    },
  ];
  for (const table of tables) blocks.push(...tableBlocks(table));
  return blocks;
}

function tableBlocks(table: Table): types.KnownBlock[] {
  const columns = columnsOf(table.rows);
  if (table.rows.length === 1 && columns.length <= SLACK_LIMITS.fieldsPerSection) {
    const row = table.rows[0]!;
    return [
      {
        type: 'section',
        fields: columns.map((column) => ({
          type: 'mrkdwn' as const,
          text: clip(`*${safeMrkdwn(column)}*\n${safeMrkdwn(cell(row[column]))}`, SLACK_LIMITS.fieldText),
        })),
      },
    ];
  }
  return splitMrkdwn(safeMrkdwn(monospace(table.rows, columns))).map((text) => ({
    type: 'section' as const,
    text: { type: 'mrkdwn' as const, text },
  }));
}

/** An aligned text table in a code block; numbers are right-aligned so their digits line up. */
export function monospace(rows: Row[], columns: string[] = columnsOf(rows)): string {
  const shown = rows.slice(0, MAX_ROWS);
  const cells = shown.map((row) => columns.map((column) => clip(cell(row[column]), MAX_CELL)));
  const widths = columns.map((column, index) =>
    Math.max(clip(column, MAX_CELL).length, ...cells.map((line) => line[index]!.length)),
  );
  const numeric = columns.map((column) => shown.every((row) => typeof row[column] === 'number'));
  const format = (values: string[]) =>
    values
      .map((value, index) => (numeric[index] ? value.padStart(widths[index]!) : value.padEnd(widths[index]!)))
      .join('  ')
      .trimEnd();
  const lines = [
    format(columns.map((column) => clip(column, MAX_CELL))),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...cells.map(format),
  ];
  if (rows.length > shown.length) lines.push(`… and ${rows.length - shown.length} more rows`);
  return `\`\`\`\n${lines.join('\n')}\n\`\`\``;
}

function columnsOf(rows: Row[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) columns.add(key);
  return [...columns].slice(0, MAX_COLUMNS);
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.replace(/\s+/g, ' ');
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null))
    return value.join(', ');
  return JSON.stringify(value);
}

function isPlainObject(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRowList(value: unknown): value is Row[] {
  return Array.isArray(value) && value.length > 0 && value.every(isPlainObject);
}
