// A tool's data as the page shows it: tables with percent bars and aligned numbers, fields, and raw JSON folded.
import { escapeHtml } from './markdown.js';

/**
 * One tool's part of a result, as the server's view gives it (bot/chat/view-tables.ts decides what is a table,
 * which columns show and how many rows): its name and summary, then tables, fields and any raw data.
 * @param {{ tool: string, summary?: string, data: { tables: any[], fields: any[], raw?: string } }} detail
 */
export function renderDetail(detail) {
  const parts = [
    `<div class="detail__head"><span class="detail__tool">${escapeHtml(detail.tool)}</span>${
      detail.summary ? `<span class="detail__summary">${escapeHtml(detail.summary)}</span>` : ''
    }</div>`,
  ];
  for (const table of detail.data.tables) parts.push(renderTable(table));
  if (detail.data.fields.length > 0) {
    const items = detail.data.fields.map(
      (field) => `<div class="field"><dt>${escapeHtml(field.label)}</dt><dd>${factValue(field)}</dd></div>`,
    );
    parts.push(`<dl class="fields">${items.join('')}</dl>`);
  }
  if (detail.data.raw !== undefined) {
    parts.push(
      `<details class="raw"><summary>Raw data</summary><pre class="code"><code>${escapeHtml(detail.data.raw)}</code></pre></details>`,
    );
  }
  return `<section class="detail">${parts.join('')}</section>`;
}

function renderTable(table) {
  const head = table.columns
    .map((column) => `<th>${escapeHtml(column.label ?? label(column.key))}</th>`)
    .join('');
  const body = table.rows
    .map(
      (row) =>
        `<tr>${row.map((value, index) => `<td data-label="${escapeHtml(table.columns[index].label ?? label(table.columns[index].key))}">${cell(table.columns[index], value)}</td>`).join('')}</tr>`,
    )
    .join('');
  const more = table.omittedRows > 0 ? `<p class="table-more">and ${table.omittedRows} more rows</p>` : '';
  const caption = table.title ? `<div class="table-title">${escapeHtml(label(table.title))}</div>` : '';
  return `${caption}<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>${more}`;
}

function label(key) {
  const words = String(key).replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A fact: its text, coloured by what the field means (the server decides: "Timed out: no" is good). */
function factValue(field) {
  if (typeof field.value === 'number' && /(^|_)percent$/.test(field.key)) return percent(field.value);
  const tone = field.tone ? ` tone-text--${escapeHtml(field.tone)}` : '';
  const kind = typeof field.value === 'number' ? 'num' : 'fact-text';
  return `<span class="${kind}${tone}">${escapeHtml(field.text)}</span>`;
}

/** A cell; a yes/no is coloured only when its column says which answer is good. */
function cell(column, value) {
  if (value === null || value === undefined || value === '') return '<span class="muted">—</span>';
  if (typeof value === 'boolean') {
    const tone =
      column.goodWhen === undefined ? '' : value === column.goodWhen ? ' tone-text--good' : ' tone-text--bad';
    return `<span class="yesno${tone}">${value ? 'yes' : 'no'}</span>`;
  }
  if (typeof value === 'number' && /(^|_)percent$/.test(column.key)) return percent(value);
  if (typeof value === 'number')
    return `<span class="num">${escapeHtml(value.toLocaleString('en-US'))}</span>`;
  return escapeHtml(String(value));
}

/** A number and a small bar; the bar's width is set by the page, since inline styles are not allowed. */
function percent(value) {
  const level = value >= 90 ? 'high' : value >= 75 ? 'mid' : 'low';
  const clamped = Math.max(0, Math.min(100, value));
  return `<span class="percent percent--${level}"><span class="percent__bar"><span class="percent__fill" data-fill="${clamped}"></span></span><span class="num">${escapeHtml(
    `${value}%`,
  )}</span></span>`;
}
