// Structured tool results as people read them: arrays of row objects become tables, plain fields a short list.
import { escapeHtml } from './markdown.js';

const MAX_ROWS = 50;
const MAX_FIELDS = 12;
/** Names that say nothing a table does not already show. */
const GENERIC_TITLES = new Set(['rows', 'items', 'results', 'entries', 'data']);

/**
 * @param {{ tool: string, summary: string, data?: unknown }} detail
 * @param {string} shownText the message text, so a summary that repeats it is not shown twice
 */
export function renderDetail(detail, shownText) {
  const parts = [];
  const summary = detail.summary && detail.summary.trim() !== shownText.trim() ? detail.summary : '';
  parts.push(
    `<div class="detail__head"><span class="detail__tool">${escapeHtml(detail.tool)}</span>${
      summary ? `<span class="detail__summary">${escapeHtml(summary)}</span>` : ''
    }</div>`,
  );
  const { tables, fields, rest } = splitData(detail.data);
  for (const table of tables) parts.push(renderTable(table.title, table.rows));
  if (fields.length > 0) {
    const items = fields
      .slice(0, MAX_FIELDS)
      .map(
        ([key, value]) =>
          `<div class="field"><dt>${escapeHtml(label(key))}</dt><dd>${cell(key, value)}</dd></div>`,
      );
    parts.push(`<dl class="fields">${items.join('')}</dl>`);
  }
  if (rest !== undefined) {
    parts.push(
      `<details class="raw"><summary>Raw data</summary><pre class="code"><code>${escapeHtml(
        JSON.stringify(rest, null, 2),
      )}</code></pre></details>`,
    );
  }
  return `<section class="detail">${parts.join('')}</section>`;
}

/** Tables for arrays of objects, fields for scalars, and whatever is left for the raw view. */
function splitData(data) {
  const tables = [];
  const fields = [];
  const rest = {};
  if (isRows(data)) return { tables: [{ title: '', rows: data }], fields, rest: undefined };
  if (data === null || data === undefined) return { tables, fields, rest: undefined };
  if (typeof data !== 'object' || Array.isArray(data))
    return { tables, fields: [['value', data]], rest: undefined };
  for (const [key, value] of Object.entries(data)) {
    if (isRows(value)) tables.push({ title: GENERIC_TITLES.has(key) ? '' : key, rows: value });
    else if (value === null || ['string', 'number', 'boolean'].includes(typeof value))
      fields.push([key, value]);
    else rest[key] = value;
  }
  return { tables, fields, rest: Object.keys(rest).length > 0 ? rest : undefined };
}

function isRows(value) {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row))
  );
}

function renderTable(title, rows) {
  const columns = visibleColumns(rows);
  const head = columns.map((column) => `<th>${escapeHtml(label(column))}</th>`).join('');
  const body = rows
    .slice(0, MAX_ROWS)
    .map((row) => `<tr>${columns.map((column) => `<td>${cell(column, row[column])}</td>`).join('')}</tr>`)
    .join('');
  const more =
    rows.length > MAX_ROWS ? `<p class="table-more">and ${rows.length - MAX_ROWS} more rows</p>` : '';
  const caption = title ? `<div class="table-title">${escapeHtml(label(title))}</div>` : '';
  return `${caption}<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>${more}`;
}

/**
 * The columns worth a person's attention: never-filled columns go, and `x_bytes` goes when a readable `x`
 * is there too (tools send both: one for people, one for the model's arithmetic).
 */
function visibleColumns(rows) {
  const columns = [];
  for (const row of rows.slice(0, MAX_ROWS)) {
    for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  }
  return columns.filter((column) => {
    const filled = rows.some(
      (row) => row[column] !== null && row[column] !== undefined && row[column] !== '',
    );
    const readable = column.endsWith('_bytes') && columns.includes(column.slice(0, -'_bytes'.length));
    return filled && !readable;
  });
}

function label(key) {
  const words = String(key).replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function cell(column, value) {
  if (value === null || value === undefined || value === '') return '<span class="muted">—</span>';
  if (typeof value === 'boolean')
    return value ? '<span class="yes">yes</span>' : '<span class="no">no</span>';
  if (typeof value === 'number' && /(^|_)percent$/.test(column)) return percent(value);
  if (typeof value === 'number')
    return `<span class="num">${escapeHtml(value.toLocaleString('en-US'))}</span>`;
  if (typeof value === 'object') return `<code>${escapeHtml(shorten(JSON.stringify(value), 120))}</code>`;
  return escapeHtml(shorten(String(value), 300));
}

/** A number and a small bar; the bar's width is set by the page, since inline styles are not allowed. */
function percent(value) {
  const level = value >= 90 ? 'high' : value >= 75 ? 'mid' : 'low';
  const clamped = Math.max(0, Math.min(100, value));
  return `<span class="percent percent--${level}"><span class="percent__bar"><span class="percent__fill" data-fill="${clamped}"></span></span><span class="num">${escapeHtml(
    `${value}%`,
  )}</span></span>`;
}

function shorten(text, max) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
