// The page's controls: sending messages, clicking message buttons, channels, the sidebar and the thread panel.
import { api, Unreachable } from './api.js';
import { showToast } from './view.js';

const $ = (id) => document.getElementById(id);
export const BANNER_KEY = 'opsbot.playground.banner';

/** Drafts that could not be sent because the bot was unreachable, by composer input; sent again once it is back. */
const waiting = new Map();

async function send(app, input, threadId) {
  const text = input.value.trim();
  if (!text) return;
  input.disabled = true;
  showWaiting(input, false);
  waiting.delete(input);
  try {
    const result = await api.post(`/api/channels/${encodeURIComponent(app.state.channelId)}/messages`, {
      user: app.state.user,
      clientId: app.state.clientId,
      text,
      ...(threadId ? { threadId } : {}),
    });
    input.value = '';
    autosize(input);
    app.state.stickToBottom = true;
    if (result.message) app.upsert(result.message);
    // A mention starts a thread on the message: the bot answers there, so show it.
    if (!threadId && result.routed && result.message) app.openThread(result.message.id);
    else app.render();
  } catch (error) {
    if (error instanceof Unreachable) {
      // The draft stays in the box; it goes as soon as the live stream is back.
      waiting.set(input, threadId);
      showWaiting(input, true);
    } else showToast($('toasts'), error.message);
  } finally {
    input.disabled = false;
    input.focus();
  }
}

/** Sends the drafts kept while the bot was unreachable; the page calls this when its live stream reconnects. */
export function sendWaiting(app) {
  for (const [input, threadId] of [...waiting]) send(app, input, threadId);
}

function showWaiting(input, shown) {
  const notice = input.closest('form').querySelector('.composer__waiting');
  notice.hidden = !shown;
  notice.textContent = shown
    ? 'opsbot cannot be reached right now. Your message is kept here and will be sent when the connection is back.'
    : '';
}

async function act(app, button, reason) {
  const article = button.closest('[data-id]');
  const group = button.parentElement;
  for (const sibling of group.querySelectorAll('button')) sibling.disabled = true;
  button.classList.add('is-busy');
  group.dataset.busy = 'true';
  setTimeout(() => release(button), 10_000);
  try {
    await api.post('/api/actions', {
      user: app.state.user,
      clientId: app.state.clientId,
      messageId: article.dataset.id,
      button: button.dataset.button,
      ...(reason ? { reason } : {}),
    });
  } catch (error) {
    release(button);
    showToast($('toasts'), error.message);
  }
}

/** Deny on an approval card asks why first, in the card; the reason is optional, as on the other platforms. */
function askReason(app, button) {
  const actions = button.parentElement;
  const open = actions.parentElement.querySelector('.deny-reason');
  if (open) return open.querySelector('input').focus();
  const id = `deny-reason-${button.closest('[data-id]').dataset.id}`;
  const form = document.createElement('form');
  form.className = 'deny-reason';
  form.innerHTML = `<label class="deny-reason__label" for="${id}">Why deny? <span class="muted">(optional, shown on the card)</span></label><input id="${id}" class="deny-reason__input" maxlength="500" autocomplete="off" placeholder="e.g. not during the release freeze"><div class="deny-reason__actions"><button type="submit" class="btn btn--deny">Deny</button><button type="button" class="btn btn--choice" data-role="keep">Cancel</button></div>`;
  const close = () => {
    form.remove();
    actions.hidden = false;
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const reason = form.querySelector('input').value.trim();
    close();
    act(app, button, reason);
  });
  form.querySelector('[data-role="keep"]').addEventListener('click', close);
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') close();
  });
  actions.hidden = true;
  actions.after(form);
  form.querySelector('input').focus();
}

export function release(button) {
  const group = button.parentElement;
  if (!group?.isConnected) return;
  button.classList.remove('is-busy');
  delete group.dataset.busy;
  for (const sibling of group.querySelectorAll('button')) sibling.disabled = false;
}

function autosize(textarea) {
  textarea.style.height = 'auto';
  textarea.style.height = `${Math.min(textarea.scrollHeight, 200)}px`;
}

function wireComposer(app, form, input, threadOf) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    send(app, input, threadOf());
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send(app, input, threadOf());
    }
  });
  input.addEventListener('input', () => autosize(input));
}

/**
 * Connects the page's controls to the app: composers, the you-are switcher, channels, the thread panel and
 * every button a message carries (by event delegation, since messages are re-rendered).
 */
export function wireControls(app) {
  wireComposer(app, $('composer'), $('composer-input'), () => undefined);
  wireComposer(app, $('thread-composer'), $('thread-input'), () => app.state.threadId);
  $('you-are').addEventListener('change', (event) => app.setUser(event.target.value));
  $('thread-close').addEventListener('click', () => {
    app.state.threadId = undefined;
    app.render();
  });
  $('menu-button').addEventListener('click', () => $('app').classList.add('sidebar-open'));
  $('sidebar-close').addEventListener('click', () => $('app').classList.remove('sidebar-open'));
  $('scrim').addEventListener('click', () => $('app').classList.remove('sidebar-open'));
  $('banner-close').addEventListener('click', () => {
    $('model-banner').hidden = true;
    sessionStorage.setItem(BANNER_KEY, 'hidden');
  });
  $('add-channel').addEventListener('click', () => {
    $('channel-form').hidden = false;
    $('channel-input').focus();
  });
  $('channel-input').addEventListener('keydown', (event) => {
    if (event.key === 'Escape') $('channel-form').hidden = true;
  });
  $('channel-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const { channel } = await api.post('/api/channels', {
        name: $('channel-input').value,
        user: app.state.user,
      });
      app.state.channels.set(channel.id, channel);
      $('channel-input').value = '';
      $('channel-form').hidden = true;
      await app.switchChannel(channel.id);
    } catch (error) {
      showToast($('toasts'), error.message);
    }
  });
  window.addEventListener('hashchange', () => app.switchChannel(location.hash.slice(1)));
  document.addEventListener('click', (event) => {
    const link = event.target.closest('[data-channel]');
    if (link) {
      event.preventDefault();
      app.switchChannel(link.dataset.channel);
      return;
    }
    const button = event.target.closest('button[data-action]');
    if (!button) return;
    const { action, target } = button.dataset;
    if (action === 'open-thread') app.openThread(target);
    else if (action === 'dismiss') {
      app.state.ephemerals = app.state.ephemerals.filter((ephemeral) => ephemeral.id !== target);
      app.render();
    } else if (
      action === 'press' &&
      button.closest('.card--approval') &&
      button.classList.contains('btn--deny')
    )
      askReason(app, button);
    else if (action === 'press') act(app, button);
  });
}
