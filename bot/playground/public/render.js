// Renders one stored playground message to HTML: the page uses it, and so do the tests that inspect the port.
import { escapeHtml, renderMarkdown } from './markdown.js';
import { renderDetail } from './tables.js';

export { escapeHtml, renderMarkdown };

const svg = (body) =>
  `<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`;

export const ICONS = {
  check: svg('<path d="M20 6 9 17l-5-5"/>'),
  cross: svg('<path d="M18 6 6 18M6 6l12 12"/>'),
  clock: svg('<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/>'),
  alert: svg('<path d="M12 3 2 21h20L12 3z"/><path d="M12 10v4M12 17.5v.5"/>'),
  info: svg('<circle cx="12" cy="12" r="9"/><path d="M12 11v5M12 7.5v.5"/>'),
  shield: svg('<path d="M12 3 4 6v6c0 5 3.5 8 8 9 4.5-1 8-4 8-9V6l-8-3z"/><path d="m9 12 2 2 4-4"/>'),
  question: svg(
    '<circle cx="12" cy="12" r="9"/><path d="M9.5 9a2.5 2.5 0 1 1 3.5 2.3c-.7.3-1 .8-1 1.5v.7M12 17v.5"/>',
  ),
  eye: svg('<path d="M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12z"/><circle cx="12" cy="12" r="3"/>'),
  bot: svg(
    '<rect x="4" y="8" width="16" height="12" rx="3"/><path d="M12 8V4M9 4h6"/><circle cx="9" cy="14" r="1.2" fill="currentColor"/><circle cx="15" cy="14" r="1.2" fill="currentColor"/>',
  ),
};

const TONE_ICONS = {
  working: '',
  success: ICONS.check,
  warning: ICONS.clock,
  error: ICONS.cross,
  info: ICONS.info,
};

/**
 * @typedef {{ now: number, users?: string[], botName?: string }} RenderContext
 * @param {any} message a stored PlaygroundMessage
 * @param {RenderContext} context
 * @param {{ continued?: boolean, footer?: string }} [extras] grouping under the previous message, and what
 *   the page adds below the content (a thread summary); `footer` must already be safe HTML
 */
export function renderMessage(message, context, extras = {}) {
  const bot = message.author.kind === 'bot';
  const name = bot ? message.author.name : message.author.displayName;
  const role = bot ? '<span class="badge">bot</span>' : roleBadge(message.author.roles);
  const avatar = bot
    ? `<div class="avatar avatar--bot">${ICONS.bot}</div>`
    : `<div class="avatar avatar--hue-${hue(message.author.userId)}">${escapeHtml(initials(name))}</div>`;
  const classes = `msg${bot ? ' msg--bot' : ''}${extras.continued ? ' msg--continued' : ''}`;
  return `<article class="${classes}" id="msg-${escapeHtml(message.id)}" data-id="${escapeHtml(
    message.id,
  )}">${avatar}<div class="msg__main"><div class="msg__meta"><span class="msg__author">${escapeHtml(
    name,
  )}</span>${role}${timeTag(message.createdAt)}</div><div class="msg__content">${renderContent(
    message,
    context,
  )}</div>${extras.footer ?? ''}</div></article>`;
}

/**
 * The body of a message. People's own text is Markdown in which mentions ping; the bot's messages arrive with
 * their neutral view (made by the server, bot/chat/message-view.ts), which is all this renders of them.
 */
export function renderContent(message, context) {
  const content = message.content;
  if (content.kind === 'user_text') return markdown(content.text, context, true);
  const view = message.view;
  // A message without a view (a newer kind from a newer server) still shows its text.
  if (!view) return markdown(String(content.text ?? content.question ?? ''), context);
  switch (view.kind) {
    case 'status':
      return `<div class="status status--${escapeHtml(view.tone)}" role="status"><span class="status__icon">${
        TONE_ICONS[view.tone] ?? ''
      }</span><span class="status__text">${escapeHtml(view.blocks[0]?.text ?? view.summary)}</span>${
        view.footer ? `<span class="status__run">${escapeHtml(view.footer)}</span>` : ''
      }</div>${buttons(view.buttons ?? [])}`;
    case 'question':
    case 'approval':
    case 'patrol_report':
    case 'alert_group':
    case 'plan':
      return card(view, context);
    case 'result':
      return `<div class="result result--${view.tone === 'error' ? 'failed' : 'ok'}">${
        view.tone === 'error'
          ? `<div class="result__label">${ICONS.cross}${escapeHtml(view.heading ?? 'Failed')}</div>`
          : ''
      }${blocks(view, context)}${footer(view)}</div>`;
    default:
      return view.tone === 'warning' || view.tone === 'error'
        ? `<div class="note note--${view.tone}">${TONE_ICONS[view.tone]}${blocks(view, context)}</div>`
        : blocks(view, context);
  }
}

function markdown(text, context, pings = false) {
  return `<div class="md">${renderMarkdown(text, { pings, users: context.users ?? [], botName: context.botName })}</div>`;
}

function blocks(view, context) {
  return view.blocks.map((block) => renderBlock(block, context)).join('');
}

function renderBlock(block, context) {
  switch (block.type) {
    case 'text': {
      const body =
        block.format === 'markdown'
          ? markdown(block.text, context)
          : `<p class="plain">${escapeHtml(block.text)}</p>`;
      return block.label
        ? `<div class="args__label">${escapeHtml(block.label)}</div><blockquote class="card__reason">${body}</blockquote>`
        : body;
    }
    case 'code':
      return `<div class="args">${
        block.label ? `<div class="args__label">${escapeHtml(block.label)}</div>` : ''
      }<pre class="code"><code>${escapeHtml(block.code)}</code></pre></div>`;
    case 'fields':
      return `<dl class="facts">${block.fields
        .map(
          (field) =>
            `<div class="fact"><dt>${escapeHtml(field.label)}</dt><dd>${
              field.at !== undefined
                ? escapeHtml(formatClock(field.at))
                : field.code
                  ? `<code>${escapeHtml(field.value)}</code>`
                  : escapeHtml(field.value)
            }</dd></div>`,
        )
        .join('')}</dl>`;
    case 'detail':
      return renderDetail(block);
    case 'checklist':
      return renderChecklist(block);
    default:
      return '';
  }
}

/** A plan step's state as its icon and words; unknown states (from a newer server) show as their own word. */
const STEP_STATES = {
  waiting: ['', 'waiting'],
  running: [ICONS.clock, 'running'],
  ok: [ICONS.check, 'done'],
  failed: [ICONS.cross, 'failed'],
  refused: [ICONS.shield, 'refused'],
  skipped: ['', 'skipped'],
};

/** A plan's steps as a list: each with its state, tool, the model's reason and the tool's summary, all escaped. */
function renderChecklist(block) {
  const items = block.items
    .map((item) => {
      const [icon, words] = STEP_STATES[item.state] ?? ['', String(item.state)];
      return `<li class="step step--${escapeHtml(item.state)}"><span class="step__state" title="${escapeHtml(
        words,
      )}">${icon}<span class="step__words">${escapeHtml(words)}</span></span><span class="step__label">${escapeHtml(
        item.label,
      )}</span>${item.why ? `<span class="step__why">${escapeHtml(item.why)}</span>` : ''}${
        item.note ? `<span class="step__note">${escapeHtml(item.note)}</span>` : ''
      }</li>`;
    })
    .join('');
  return `<ol class="checklist">${items}</ol>`;
}

const CARD_ICONS = {
  plan: ICONS.check,
  question: ICONS.question,
  approval: ICONS.shield,
  patrol_report: ICONS.eye,
  alert_group: ICONS.eye,
};
const CARD_STATES = {
  approved: 'approved',
  denied: 'denied',
  expired: 'expired',
  withdrawn: 'denied',
  answered: 'done',
};

/** Questions and approval cards: a head, the body, then either the buttons or how it ended. */
function card(view, context) {
  const state = view.outcome ? view.outcome.state : 'pending';
  const countdown =
    view.expiresAt === undefined
      ? ''
      : `<span class="countdown" data-expires-at="${Number(view.expiresAt)}">${escapeHtml(
          formatCountdown(view.expiresAt - context.now),
        )}</span>`;
  const end = view.outcome
    ? outcomeLine(view.outcome)
    : `${buttons(view.buttons)}${view.kind === 'question' && view.footer ? `<div class="card__hint">${escapeHtml(view.footer)}</div>` : ''}`;
  const small = view.kind === 'question' ? '' : footer(view);
  const tone =
    (view.kind === 'patrol_report' || view.kind === 'alert_group' || view.kind === 'plan') && view.tone
      ? ` card--tone-${escapeHtml(view.tone)}`
      : '';
  const classes = `card card--${view.kind} card--${escapeHtml(CARD_STATES[state] ?? state)}${view.outcome ? ' card--done' : ''}${tone}`;
  return `<div class="${classes}"><div class="card__head">${CARD_ICONS[view.kind] ?? ''}<span class="card__title">${escapeHtml(
    view.heading ?? '',
  )}</span>${countdown}</div><div class="card__body">${blocks(view, context)}</div>${end}${small}</div>`;
}

/** The buttons in their rows: a new row where a button's `row` changes (a grant pattern's buttons sit apart). */
function buttons(list) {
  if (list.length === 0) return '';
  const styles = {
    primary: ['btn--approve', ICONS.check],
    danger: ['btn--deny', ICONS.cross],
    default: ['btn--choice', ''],
  };
  const rows = [];
  for (const button of list) {
    const row = button.row ?? 0;
    if (rows.length === 0 || rows[rows.length - 1].row !== row) rows.push({ row, buttons: [] });
    rows[rows.length - 1].buttons.push(button);
  }
  return rows
    .map(
      (row) =>
        `<div class="card__actions">${row.buttons
          .map((button) => {
            const [style, icon] = styles[button.style] ?? styles.default;
            return `<button type="button" class="btn ${style}" data-action="press" data-button="${escapeHtml(
              button.id,
            )}">${icon}${escapeHtml(button.label)}</button>`;
          })
          .join('')}</div>`,
    )
    .join('');
}

const OUTCOME_ICONS = {
  approved: ICONS.check,
  confirmed: ICONS.check,
  answered: ICONS.check,
  denied: ICONS.cross,
  expired: ICONS.clock,
  withdrawn: ICONS.cross,
};
const OUTCOME_WORDS = {
  approved: 'Approved',
  confirmed: 'Confirmed',
  denied: 'Denied',
  expired: 'Expired',
  withdrawn: 'Cancelled',
  answered: 'Answered',
};

function outcomeLine(outcome) {
  const by = outcome.by ? ` by <strong>${escapeHtml(outcome.by)}</strong>` : '';
  const text =
    outcome.state === 'answered'
      ? `Answered${by}: <strong>${escapeHtml(outcome.detail ?? '')}</strong>`
      : `${OUTCOME_WORDS[outcome.state] ?? escapeHtml(outcome.state)}${by} at ${escapeHtml(formatClock(outcome.at))}${
          outcome.detail ? ` · ${escapeHtml(outcome.detail)}` : ''
        }`;
  return `<div class="card__outcome outcome--${escapeHtml(outcome.state === 'answered' || outcome.state === 'confirmed' ? 'approved' : outcome.state)}">${
    OUTCOME_ICONS[outcome.state] ?? ''
  }<span>${text}</span></div>`;
}

/** The run id, so people can name the run in `/ops status` and `/ops cancel`. */
function footer(view) {
  return view.footer ? `<div class="msg__footer">${footerText(view.footer)}</div>` : '';
}

/** A footer that is one http(s) address (an alert's generatorURL) is a link to it; anything else, plain text. */
function footerText(text) {
  const escaped = escapeHtml(text);
  return /^https?:\/\/\S+$/.test(text)
    ? `<a href="${escaped}" target="_blank" rel="noopener noreferrer nofollow">${escaped}</a>`
    : escaped;
}

/** An answer from the bot that only the person who acted sees; it is not stored, so a reload drops it. */
export function renderEphemeral(ephemeral, context) {
  return `<article class="msg msg--bot msg--ephemeral" data-ephemeral="${escapeHtml(
    ephemeral.id,
  )}"><div class="avatar avatar--bot">${ICONS.bot}</div><div class="msg__main"><div class="msg__meta"><span class="msg__author">${escapeHtml(
    context.botName ?? 'opsbot',
  )}</span><span class="badge">bot</span>${timeTag(ephemeral.at)}<span class="only-you">${
    ICONS.eye
  }Only visible to you</span><button type="button" class="link-button" data-action="dismiss" data-target="${escapeHtml(
    ephemeral.id,
  )}">Dismiss</button></div><div class="msg__content"><div class="md">${renderMarkdown(ephemeral.text, {
    botName: context.botName,
  })}</div></div></div></article>`;
}

function roleBadge(roles) {
  const role = roles.includes('admin') ? 'admin' : (roles[0] ?? '');
  return role ? `<span class="role role--${escapeHtml(role)}">${escapeHtml(role)}</span>` : '';
}

function timeTag(at) {
  return `<time datetime="${escapeHtml(new Date(at).toISOString())}" title="${escapeHtml(
    new Date(at).toLocaleString(),
  )}">${escapeHtml(formatClock(at))}</time>`;
}

export function formatClock(at) {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

export function formatCountdown(remainingMs) {
  if (remainingMs <= 0) return 'expired';
  const seconds = Math.ceil(remainingMs / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  return hours > 0
    ? `expires in ${hours} h ${String(minutes).padStart(2, '0')} min`
    : `expires in ${minutes}:${rest}`;
}

export function initials(name) {
  const words = String(name).trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? words[0][0] + words[words.length - 1][0] : (words[0]?.[0] ?? '');
  return letters.toUpperCase() || '?';
}

/** A stable colour per person, one of eight. */
export function hue(id) {
  let sum = 0;
  for (const character of String(id)) sum = (sum * 31 + character.charCodeAt(0)) % 997;
  return sum % 8;
}
