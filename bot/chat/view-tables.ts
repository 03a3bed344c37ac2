// Tool data as people read it: lists of rows become tables, plain values fields, and the rest raw JSON.
import { fencedCode } from './code-fence.js';
import { neutralizePings } from './neutralize-pings.js';
import { fact, factLabel, goodWhen, groupFact, type ResultFact, type ViewCell } from './result-facts.js';
import { clip } from './split-text.js';
import type { ViewLimits } from './view-limits.js';

export type { ViewCell };

export interface ViewColumn {
  /** The data's own key: adapters may show it as is (monospace) or as a label (`used_percent` → `Used percent`). */
  key: string;
  /** The key written for people (`used_percent` → `Used`), for adapters that do not show keys as is. */
  label: string;
  /** Every shown value is a number, so digits can line up. */
  numeric: boolean;
  /** For a yes/no column whose name says which answer is good (`connected`, `timed_out`): that answer. */
  goodWhen?: boolean;
}

export interface ViewTable {
  /** The data's key for this list, or empty when the key says nothing (`rows`, `items`) or the data is the list. */
  title: string;
  columns: ViewColumn[];
  rows: ViewCell[][];
  /** Rows left out to stay within the platform's limit. */
  omittedRows: number;
}

export interface ToolDataView {
  tables: ViewTable[];
  /** Plain values (and groups such as load averages) as facts with labels, units and tones for people. */
  fields: ResultFact[];
  /** Nested data that is neither, as indented JSON, when the platform shows it. */
  raw?: string;
}

type Row = Record<string, unknown>;

/** Names that say nothing a table does not already show. */
const GENERIC_TITLES = new Set(['rows', 'items', 'results', 'entries', 'data']);

export function toolDataView(data: unknown, limits: ViewLimits): ToolDataView {
  if (isRowList(data)) return { tables: [tableOf('', data, limits)], fields: [] };
  if (data === null || data === undefined) return { tables: [], fields: [] };
  if (!isPlainObject(data))
    return { tables: [], fields: [inertFact(fact('value', cellOf(data, limits)), limits)] };
  const tables: ViewTable[] = [];
  const fields: ToolDataView['fields'] = [];
  const rest: Row = {};
  const keys = Object.keys(data);
  for (const [key, value] of Object.entries(data)) {
    const group = isPlainObject(value) ? groupFact(key, value) : undefined;
    if (isRowList(value)) tables.push(tableOf(GENERIC_TITLES.has(key) ? '' : key, value, limits));
    else if (group) {
      if (fields.length < limits.dataFields) fields.push(inertFact(group, limits));
    } else if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
      if (hasReadableTwin(key, keys)) continue;
      if (fields.length < limits.dataFields) fields.push(inertFact(fact(key, cellOf(value, limits)), limits));
    } else rest[key] = value;
  }
  const raw =
    limits.rawData && Object.keys(rest).length > 0
      ? neutralizePings(clip(JSON.stringify(rest, null, 2), limits.textChars))
      : undefined;
  return { tables, fields, ...(raw === undefined ? {} : { raw }) };
}

export function tableOf(title: string, rows: readonly Row[], limits: ViewLimits): ViewTable {
  const shown = rows.slice(0, limits.table.rows);
  const keys = visibleColumns(shown).slice(0, limits.table.columns);
  return {
    title: labelOf(title, limits),
    columns: keys.map((key) => {
      const good = goodWhen(key);
      return {
        key: labelOf(key, limits),
        label: labelOf(factLabel(key), limits),
        numeric: shown.every((row) => typeof row[key] === 'number'),
        ...(good === undefined ? {} : { goodWhen: good }),
      };
    }),
    rows: shown.map((row) => keys.map((key) => cellOf(row[key], limits))),
    omittedRows: rows.length - shown.length,
  };
}

/**
 * The columns worth a person's attention: never-filled columns go, and `x_bytes` goes when a readable `x` is
 * there too (tools send both: one for people, one for the model's arithmetic).
 */
function visibleColumns(rows: readonly Row[]): string[] {
  const columns: string[] = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  return columns.filter((column) => {
    const filled = rows.some(
      (row) => row[column] !== null && row[column] !== undefined && row[column] !== '',
    );
    return filled && !hasReadableTwin(column, columns);
  });
}

/** `uptime_seconds` beside `uptime`, `used_bytes` beside `used`: tools send both, one for people. */
function hasReadableTwin(key: string, keys: readonly string[]): boolean {
  const suffix = ['_bytes', '_seconds'].find((unit) => key.endsWith(unit));
  return suffix !== undefined && keys.includes(key.slice(0, -suffix.length));
}

/** Keys and values come from tool data: inert and short like the cells. */
function inertFact(shown: ResultFact, limits: ViewLimits): ResultFact {
  return { ...shown, label: labelOf(shown.label, limits), text: neutralizePings(shown.text) };
}

function cellOf(value: unknown, limits: ViewLimits): ViewCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  const text =
    typeof value === 'string'
      ? value.replace(/\s+/g, ' ')
      : typeof value === 'bigint'
        ? String(value)
        : Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)
          ? value.join(', ')
          : JSON.stringify(value);
  return neutralizePings(clip(text, limits.table.cellChars));
}

/** Keys come from tool data too: inert and short like the cells. */
function labelOf(key: string, limits: ViewLimits): string {
  return neutralizePings(clip(key, limits.table.cellChars));
}

/** A cell as text, for monospace tables and fields. */
export function cellText(value: ViewCell): string {
  return value === null ? '' : String(value);
}

/** An aligned text table in a code block; numbers are right-aligned so their digits line up. */
export function monospaceTable(table: ViewTable): string {
  const header = table.columns.map((column) => column.key);
  const cells = table.rows.map((row) => row.map(cellText));
  const widths = header.map((key, index) =>
    Math.max(key.length, ...cells.map((line) => line[index]!.length)),
  );
  const format = (values: string[]) =>
    values
      .map((value, index) =>
        table.columns[index]!.numeric ? value.padStart(widths[index]!) : value.padEnd(widths[index]!),
      )
      .join('  ')
      .trimEnd();
  const lines = [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.map(format)];
  if (table.omittedRows > 0) lines.push(`… and ${table.omittedRows} more rows`);
  return fencedCode(lines.join('\n'));
}

function isPlainObject(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRowList(value: unknown): value is Row[] {
  return Array.isArray(value) && value.length > 0 && value.every(isPlainObject);
}
