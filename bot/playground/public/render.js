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

/** The body of a message, by kind; an unknown kind (a newer bot) still shows its text. */
export function renderContent(message, context) {
  const content = message.content;
  const markdown = (text, pings = false) =>
    `<div class="md">${renderMarkdown(text, { pings, users: context.users ?? [], botName: context.botName })}</div>`;
  switch (content.kind) {
    case 'user_text':
      return markdown(content.text, true);
    case 'text':
      return content.tone === 'warning' || content.tone === 'error'
        ? `<div class="note note--${content.tone}">${TONE_ICONS[content.tone]}${markdown(content.text)}</div>`
        : markdown(content.text);
    case 'status':
      return `<div class="status status--${escapeHtml(content.tone)}" role="status"><span class="status__icon">${
        TONE_ICONS[content.tone] ?? ''
      }</span><span class="status__text">${escapeHtml(content.text)}</span></div>`;
    case 'question':
      return question(message, content, markdown);
    case 'approval':
      return approval(content, context);
    case 'result':
      return `<div class="result result--${content.ok ? 'ok' : 'failed'}">${
        content.ok ? '' : `<div class="result__label">${ICONS.cross}Failed</div>`
      }${markdown(content.text)}${(content.details ?? []).map((detail) => renderDetail(detail, content.text)).join('')}</div>`;
    default:
      return markdown(String(content.text ?? content.question ?? ''));
  }
}

function question(message, content, markdown) {
  // The kernel sends the answer with the question; older stored messages carry it on the record.
  const answered =
    message.answered ??
    (content.answered
      ? { by: content.answered.by, value: content.answered.answer, at: content.answered.at }
      : undefined);
  const buttons = answered
    ? ''
    : content.choices
        .map(
          (choice) =>
            `<button type="button" class="btn btn--choice" data-action="answer" data-target="${escapeHtml(
              content.runId,
            )}" data-value="${escapeHtml(choice)}">${escapeHtml(choice)}</button>`,
        )
        .join('');
  const footer = answered
    ? `<div class="card__outcome outcome--approved">${ICONS.check}<span>Answered by ${escapeHtml(
        answered.by,
      )}: <strong>${escapeHtml(answered.value)}</strong></span></div>`
    : `${buttons ? `<div class="card__actions">${buttons}</div>` : ''}<div class="card__hint">${
        buttons ? 'Pick one, or reply' : 'Reply'
      } in this thread to answer.</div>`;
  return `<div class="card card--question${answered ? ' card--done' : ''}"><div class="card__head">${
    ICONS.question
  }<span class="card__title">Question for ${escapeHtml(content.askedOf)}</span></div><div class="card__body">${markdown(
    content.question,
  )}</div>${footer}</div>`;
}

function approval(content, context) {
  const decision = content.decision;
  const state = decision ? decision.outcome : 'pending';
  const countdown = decision
    ? ''
    : `<span class="countdown" data-expires-at="${Number(content.expiresAt)}">${escapeHtml(
        formatCountdown(content.expiresAt - context.now),
      )}</span>`;
  // The lead line already names the requester and the tool; the facts add what an approver weighs.
  const facts = [
    ['Approvers', escapeHtml(content.approvers.join('; '))],
    ['Expires', escapeHtml(formatClock(content.expiresAt))],
  ]
    .map(([term, value]) => `<div class="fact"><dt>${term}</dt><dd>${value}</dd></div>`)
    .join('');
  const reason = content.reason
    ? `<blockquote class="card__reason">${escapeHtml(content.reason)}</blockquote>`
    : '<p class="card__reason card__reason--none">No reason was given.</p>';
  const footer = decision
    ? decisionLine(decision)
    : `<div class="card__actions"><button type="button" class="btn btn--approve" data-action="approve" data-target="${escapeHtml(
        content.approvalId,
      )}">${ICONS.check}Approve</button><button type="button" class="btn btn--deny" data-action="deny" data-target="${escapeHtml(
        content.approvalId,
      )}">${ICONS.cross}Deny</button></div>`;
  const title = {
    pending: 'Approval needed',
    approved: 'Approved',
    denied: 'Denied',
    expired: 'Expired',
    withdrawn: 'Cancelled',
  }[state];
  return `<div class="card card--approval card--${escapeHtml(state)}"><div class="card__head">${
    ICONS.shield
  }<span class="card__title">${escapeHtml(title ?? state)}</span>${countdown}</div><div class="card__body"><p class="card__lead"><strong>${escapeHtml(
    content.requester,
  )}</strong> wants to run <code>${escapeHtml(content.tool)}</code></p>${reason}<dl class="facts">${facts}</dl><div class="args"><div class="args__label">Arguments</div><pre class="code"><code>${escapeHtml(
    content.argumentsJson,
  )}</code></pre></div></div>${footer}</div>`;
}

function decisionLine(decision) {
  const words = { approved: 'Approved', denied: 'Denied', expired: 'Expired', withdrawn: 'Cancelled' };
  const icon =
    decision.outcome === 'approved' ? ICONS.check : decision.outcome === 'denied' ? ICONS.cross : ICONS.clock;
  const by = decision.outcome === 'expired' ? '' : ` by <strong>${escapeHtml(decision.by)}</strong>`;
  const after = decision.outcome === 'expired' ? ', nobody approved' : '';
  const reason = decision.reason ? ` · ${escapeHtml(decision.reason)}` : '';
  return `<div class="card__outcome outcome--${escapeHtml(decision.outcome)}">${icon}<span>${
    words[decision.outcome] ?? escapeHtml(decision.outcome)
  }${by} at ${escapeHtml(formatClock(decision.at))}${after}${reason}</span></div>`;
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
