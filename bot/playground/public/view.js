// Builds the channel and thread views from the page's state, and updates the DOM only where something changed.
import {
  escapeHtml,
  formatClock,
  formatCountdown,
  hue,
  ICONS,
  initials,
  renderEphemeral,
  renderMessage,
} from './render.js';
import { isReply, orderReplies } from './thread-order.js';

/** Messages from one author this close together share one header, as in chat products. */
const GROUP_MS = 5 * 60_000;

/**
 * @typedef {{ key: string, version: string, html: string }} Item
 * @param {{ channel: any, messages: any[], ephemerals: any[], context: any }} input
 * @returns {Item[]}
 */
export function channelItems({ channel, messages, ephemerals, context }) {
  const replies = new Map();
  for (const message of messages) {
    if (!message.threadId) continue;
    if (!replies.has(message.threadId)) replies.set(message.threadId, []);
    replies.get(message.threadId).push(message);
  }
  const entries = [
    ...messages.filter((message) => !message.threadId).map((message) => ({ at: placedAt(message), message })),
    ...ephemerals
      .filter((ephemeral) => !ephemeral.threadId)
      .map((ephemeral) => ({ at: ephemeral.at, ephemeral })),
  ].sort(byPlace);
  const items = [{ key: 'intro', version: channel.name, html: intro(channel) }];
  return items.concat(
    timeline(entries, context, (message) => {
      const thread = (replies.get(message.id) ?? []).sort((a, b) => a.createdAt - b.createdAt);
      return {
        footer: threadSummary(message, thread),
        version: threadVersion(thread),
        threaded: thread.length > 0,
      };
    }),
  );
}

/** The thread panel: the root, a divider with the reply count, then the replies and this person's ephemerals. */
export function threadItems({ root, messages, ephemerals, context }) {
  const replies = orderReplies(messages.filter((message) => message.threadId === root.id));
  const count = replies.filter(isReply).length;
  const items = [
    { key: `root-${root.id}`, version: String(root.seq), html: renderMessage(root, context) },
    {
      key: 'replies',
      version: String(count),
      html: `<div class="divider"><span>${replyCount(count)}</span></div>`,
    },
  ];
  // Replies keep their run order; an ephemeral goes after the last reply that came before it.
  const entries = replies.map((message) => ({ at: placedAt(message), message }));
  for (const ephemeral of ephemerals.filter((candidate) => candidate.threadId === root.id)) {
    const after = entries.findLastIndex((entry) => entry.at <= ephemeral.at);
    entries.splice(after + 1, 0, { at: ephemeral.at, ephemeral });
  }
  return items.concat(
    timeline(entries, context, () => ({ footer: '', version: '', threaded: false }), false),
  );
}

function timeline(entries, context, extrasFor, withDays = true) {
  const items = [];
  let previous;
  let day;
  for (const entry of entries) {
    const entryDay = new Date(entry.at).toDateString();
    if (withDays && entryDay !== day) {
      items.push({ key: `day-${entryDay}`, version: '', html: dayDivider(entry.at, context.now) });
      previous = undefined;
    }
    day = entryDay;
    if (entry.ephemeral) {
      items.push({
        key: `eph-${entry.ephemeral.id}`,
        version: '',
        html: renderEphemeral(entry.ephemeral, context),
      });
      previous = undefined;
      continue;
    }
    const { message } = entry;
    const extras = extrasFor(message);
    const continued =
      previous !== undefined &&
      authorKey(previous) === authorKey(message) &&
      entry.at - placedAt(previous) < GROUP_MS &&
      !extras.threaded;
    items.push({
      key: message.id,
      version: `${message.seq}|${continued}|${extras.version}`,
      html: renderMessage(message, context, { continued, footer: extras.footer }),
    });
    previous = extras.threaded ? undefined : message;
  }
  return items;
}

/**
 * A run's status line is one message updated in place; shown where it last changed, it reads as the bot's
 * "working…" indicator under the latest reply rather than a stale line above them.
 */
function placedAt(message) {
  return message.content.kind === 'status' ? message.updatedAt : message.createdAt;
}

/** By time; at the same millisecond, by the order the changes were saved (a status updated after a reply). */
function byPlace(a, b) {
  return a.at - b.at || (a.message?.seq ?? 0) - (b.message?.seq ?? 0);
}

function authorKey(message) {
  return message.author.kind === 'bot' ? 'bot' : `user:${message.author.userId}`;
}

function threadVersion(thread) {
  return `${thread.length}:${thread.reduce((max, message) => Math.max(max, message.seq), 0)}`;
}

/** Under a message with replies: who replied, how many, the run's state now, and when the last reply came. */
function threadSummary(message, thread) {
  const hint = `<button type="button" class="msg__reply" data-action="open-thread" data-target="${escapeHtml(message.id)}">Reply in thread</button>`;
  if (thread.length === 0) return hint;
  const authors = [];
  for (const reply of thread) {
    const key = authorKey(reply);
    if (!authors.some((author) => author.key === key)) authors.push({ key, reply });
  }
  const faces = authors
    .slice(0, 3)
    .map(({ reply }) =>
      reply.author.kind === 'bot'
        ? `<span class="avatar avatar--xs avatar--bot">${ICONS.bot}</span>`
        : `<span class="avatar avatar--xs avatar--hue-${hue(reply.author.userId)}">${escapeHtml(initials(reply.author.displayName))}</span>`,
    )
    .join('');
  const status = thread.findLast((reply) => reply.content.kind === 'status');
  const state = status
    ? `<span class="thread-summary__state tone--${escapeHtml(status.content.tone)}">${escapeHtml(status.content.text)}</span>`
    : '';
  const replies = thread.filter(isReply);
  const last = replies.at(-1) ?? thread[thread.length - 1];
  const count =
    replies.length > 0 ? `<span class="thread-summary__count">${replyCount(replies.length)}</span>` : '';
  return `<button type="button" class="thread-summary" data-action="open-thread" data-target="${escapeHtml(
    message.id,
  )}"><span class="thread-summary__faces">${faces}</span>${count}${state}<span class="thread-summary__last">Last reply ${escapeHtml(formatClock(last.createdAt))}</span></button>`;
}

function replyCount(count) {
  return count === 0 ? 'No replies yet' : count === 1 ? '1 reply' : `${count} replies`;
}

function intro(channel) {
  return `<div class="intro"><div class="intro__badge">#</div><h2 class="intro__title">This is the start of #${escapeHtml(
    channel.name,
  )}</h2><p class="intro__text">Mention <span class="mention mention--bot">@opsbot</span> with a task and it answers in a thread. Try <code>@opsbot disk_usage paths=/</code>, <code>@opsbot system_stats</code> or <code>/ops help</code>.</p></div>`;
}

function dayDivider(at, now) {
  const date = new Date(at);
  const today = new Date(now).toDateString();
  const label =
    date.toDateString() === today
      ? 'Today'
      : date.toLocaleDateString([], { weekday: 'long', month: 'long', day: 'numeric' });
  return `<div class="divider divider--day"><span>${escapeHtml(label)}</span></div>`;
}

/** Puts `items` into `container` in order, keeping nodes whose version is unchanged (and their focus). */
export function syncList(container, items) {
  const existing = new Map();
  for (const node of container.children) existing.set(node.dataset.key, node);
  items.forEach((item, index) => {
    let node = existing.get(item.key);
    if (!node || node.dataset.version !== item.version) {
      const fresh = toNode(item.html);
      fresh.dataset.key = item.key;
      fresh.dataset.version = item.version;
      hydrate(fresh);
      if (node) node.replaceWith(fresh);
      node = fresh;
    }
    existing.delete(item.key);
    const at = container.children[index];
    if (at !== node) container.insertBefore(node, at ?? null);
  });
  for (const stale of existing.values()) stale.remove();
}

function toNode(html) {
  const template = document.createElement('template');
  template.innerHTML = html;
  return template.content.firstElementChild;
}

/** What the HTML cannot say under the page's CSP: bar widths, and the countdowns' current values. */
export function hydrate(root) {
  for (const fill of root.querySelectorAll('[data-fill]')) fill.style.width = `${Number(fill.dataset.fill)}%`;
  tickCountdowns(root, Date.now());
}

export function tickCountdowns(root, now) {
  for (const countdown of root.querySelectorAll('[data-expires-at]')) {
    const remaining = Number(countdown.dataset.expiresAt) - now;
    countdown.textContent = formatCountdown(remaining);
    countdown.classList.toggle('countdown--urgent', remaining < 120_000);
  }
}

export function renderChannelList(list, channels, currentId, unread) {
  list.innerHTML = channels
    .map((channel) => {
      const count = unread.get(channel.id) ?? 0;
      return `<li><a href="#${escapeHtml(channel.id)}" class="channel-link${channel.id === currentId ? ' is-active' : ''}${
        count > 0 ? ' has-unread' : ''
      }" data-channel="${escapeHtml(channel.id)}"><span class="hash">#</span><span class="channel-link__name">${escapeHtml(
        channel.name,
      )}</span>${count > 0 ? `<span class="unread">${count}</span>` : ''}</a></li>`;
    })
    .join('');
}

export function showToast(container, text) {
  const node = toNode(`<div class="toast">${ICONS.alert}<span>${escapeHtml(text)}</span></div>`);
  container.append(node);
  setTimeout(() => node.remove(), 6000);
}
