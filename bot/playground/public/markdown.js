// Chat Markdown to HTML for the playground: everything is escaped first, then only known tags are added.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for use in HTML content and in quoted attribute values. */
export function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (character) => ESCAPES[character]);
}

/**
 * Mentions that would notify people in a real chat. Text from the bot (the model, tools) never pings: its
 * mentions stay plain text. People's own messages highlight them, as a chat product would.
 */
const MENTION = /(^|[^\w@/.])@(everyone|here|channel|[a-z][\w.-]{0,30})\b/gi;

/**
 * @param {string} text
 * @param {{ pings?: boolean, users?: string[], botName?: string }} [options]
 */
export function renderMarkdown(text, options = {}) {
  const blocks = [];
  const parts = String(text).split(/^```[^\n`]*\n?/m);
  // Odd parts sit between fences; an unclosed fence runs to the end, as chat products show it.
  parts.forEach((part, index) => {
    if (index % 2 === 1)
      blocks.push(`<pre class="code"><code>${escapeHtml(part.replace(/\n$/, ''))}</code></pre>`);
    else if (part.trim() !== '') blocks.push(renderBlocks(part, options));
  });
  return blocks.join('');
}

function renderBlocks(text, options) {
  const lines = text.replace(/\s+$/, '').split('\n');
  const html = [];
  let paragraph = [];
  const flush = () => {
    if (paragraph.length > 0)
      html.push(`<p>${paragraph.map((line) => inline(line, options)).join('<br>')}</p>`);
    paragraph = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (isTableStart(lines, index)) {
      flush();
      const rows = [];
      while (index < lines.length && /^\s*\|/.test(lines[index])) rows.push(lines[index++]);
      index--;
      html.push(markdownTable(rows, options));
    } else if (/^\s*([-*•]|\d+[.)])\s+/.test(line)) {
      flush();
      const ordered = /^\s*\d/.test(line);
      const items = [];
      while (index < lines.length && /^\s*([-*•]|\d+[.)])\s+/.test(lines[index])) {
        items.push(`<li>${inline(lines[index++].replace(/^\s*([-*•]|\d+[.)])\s+/, ''), options)}</li>`);
      }
      index--;
      html.push(ordered ? `<ol>${items.join('')}</ol>` : `<ul>${items.join('')}</ul>`);
    } else if (/^#{1,6}\s+/.test(line)) {
      flush();
      html.push(`<p class="md-heading">${inline(line.replace(/^#{1,6}\s+/, ''), options)}</p>`);
    } else if (/^>\s?/.test(line)) {
      flush();
      html.push(`<blockquote>${inline(line.replace(/^>\s?/, ''), options)}</blockquote>`);
    } else if (line.trim() === '') {
      flush();
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return html.join('');
}

function isTableStart(lines, index) {
  return (
    /^\s*\|.*\|\s*$/.test(lines[index]) &&
    /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(lines[index + 1] ?? '')
  );
}

function markdownTable(rows, options) {
  const cells = (row) =>
    row
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => inline(cell.trim(), options));
  const [head, , ...body] = rows;
  const header = cells(head)
    .map((cell) => `<th>${cell}</th>`)
    .join('');
  const bodyRows = body.map(
    (row) =>
      `<tr>${cells(row)
        .map((cell) => `<td>${cell}</td>`)
        .join('')}</tr>`,
  );
  return `<div class="table-wrap"><table><thead><tr>${header}</tr></thead><tbody>${bodyRows.join('')}</tbody></table></div>`;
}

/** Code spans first, so nothing inside them is formatted; everything else is escaped before any tag is added. */
function inline(text, options) {
  return text
    .split(/(`[^`\n]+`)/)
    .map((piece) =>
      piece.length > 2 && piece.startsWith('`') && piece.endsWith('`')
        ? `<code>${escapeHtml(piece.slice(1, -1))}</code>`
        : emphasis(escapeHtml(piece), options),
    )
    .join('');
}

function emphasis(escaped, options) {
  const pieces = [];
  let rest = escaped;
  for (let match = LINK.exec(rest); match; match = LINK.exec(rest)) {
    const labelled = match[1] !== undefined;
    const url = labelled ? match[2] : trimUrl(match[0]);
    const length = labelled ? match[0].length : url.length;
    // "http:// or https://" names a scheme, not a place: a link needs a host after it.
    if (!HOST_AFTER_SCHEME.test(url)) {
      pieces.push(styled(rest.slice(0, match.index + match[0].length), options));
      rest = rest.slice(match.index + match[0].length);
      continue;
    }
    pieces.push(
      styled(rest.slice(0, match.index), options),
      link(url, labelled ? styled(match[1], {}) : url),
    );
    rest = rest.slice(match.index + length);
  }
  pieces.push(styled(rest, options));
  return pieces.join('');
}

// Matched on escaped text, so a URL cannot contain a quote or an angle bracket that ends the attribute.
const LINK = /\[([^\]\n]+)\]\((https?:\/\/[^\s)<]+)\)|\bhttps?:\/\/[^\s<]+/;

const HOST_AFTER_SCHEME = /^https?:\/\/[a-z0-9[]/i;

/** Sentence punctuation after a link belongs to the sentence. */
function trimUrl(url) {
  let trimmed = url;
  for (;;) {
    const next = trimmed.replace(/(?:[.,:;!?)]|&#39;|&quot;|&gt;)$/, '');
    if (next === trimmed || next.length < 'http://'.length) return trimmed;
    trimmed = next;
  }
}

function link(url, label) {
  return `<a href="${url}" target="_blank" rel="noopener noreferrer nofollow">${label}</a>`;
}

function styled(escaped, options) {
  return mentions(
    escaped
      .replace(/\*\*(?=\S)([^*]*?\S)\*\*/g, '<strong>$1</strong>')
      .replace(/(^|[\s(])\*(?=\S)([^*\n]*?\S)\*(?=$|[\s).,:;!?])/g, '$1<strong>$2</strong>')
      .replace(/(^|[\s(])_(?=\S)([^_\n]*?\S)_(?=$|[\s).,:;!?])/g, '$1<em>$2</em>')
      .replace(/(^|[\s(])~(?=\S)([^~\n]*?\S)~(?=$|[\s).,:;!?])/g, '$1<del>$2</del>'),
    options,
  );
}

function mentions(html, options) {
  const users = new Set((options.users ?? []).map((user) => user.toLowerCase()));
  const botName = (options.botName ?? 'opsbot').toLowerCase();
  // Only outside tags, so nothing inside an attribute changes.
  return html
    .split(/(<[^>]+>)/)
    .map((piece) =>
      piece.startsWith('<')
        ? piece
        : piece.replace(MENTION, (whole, before, name) => {
            const lower = name.toLowerCase();
            if (lower === botName) return `${before}<span class="mention mention--bot">@${name}</span>`;
            if (!options.pings) return whole;
            const broadcast = lower === 'everyone' || lower === 'here' || lower === 'channel';
            if (!broadcast && !users.has(lower)) return whole;
            return `${before}<span class="mention mention--ping" data-ping="@${lower}">@${name}</span>`;
          }),
    )
    .join('');
}
