// The playground page: state, the live stream, and what happens on each click and keypress.
import { api, followEvents, newClientId } from './api.js';
import { BANNER_KEY, release, sendWaiting, wireControls } from './controls.js';
import { hue, initials } from './render.js';
import { channelItems, renderChannelList, showToast, syncList, threadItems, tickCountdowns } from './view.js';

const $ = (id) => document.getElementById(id);
const USER_KEY = 'opsbot.playground.user';

const state = {
  info: undefined,
  users: [],
  user: undefined,
  clientId: newClientId(),
  channels: new Map(),
  channelId: undefined,
  /** Every message seen, by id; the newest version (highest seq) wins, whichever way it arrived. */
  messages: new Map(),
  /** Per channel, the cursor of the page before the earliest one loaded; null once the first message is loaded. */
  earlier: new Map(),
  unread: new Map(),
  threadId: undefined,
  ephemerals: [],
  stickToBottom: true,
};

/** What sending a kept draft needs of the page. */
const app = { state, upsert, render, openThread };

function upsert(message) {
  const current = state.messages.get(message.id);
  if (current && current.seq >= message.seq) return false;
  state.messages.set(message.id, message);
  return !current;
}

// ---- loading -------------------------------------------------------------------------------------------

async function refresh() {
  const { channels } = await api.get('/api/channels');
  for (const channel of channels) state.channels.set(channel.id, channel);
  if (!state.channels.has(state.channelId)) state.channelId = state.info.defaultChannel;
  await loadHistory(state.channelId);
}

/** The latest page of the channel's messages; "Load earlier" pages back from there. */
async function loadHistory(channelId) {
  const { messages, earlier } = await api.get(`/api/channels/${encodeURIComponent(channelId)}/messages`);
  for (const message of messages) upsert(message);
  noteEarlier(channelId, earlier);
  render();
}

async function loadEarlier() {
  const channelId = state.channelId;
  const before = state.earlier.get(channelId);
  if (before === null || before === undefined) return;
  const path = `/api/channels/${encodeURIComponent(channelId)}/messages?before=${before}`;
  const { messages, earlier } = await api.get(path);
  for (const message of messages) upsert(message);
  noteEarlier(channelId, earlier);
  render();
}

/** Keeps the furthest point reached: reloading the latest page must not forget the pages loaded before it. */
function noteEarlier(channelId, earlier) {
  const known = state.earlier.get(channelId);
  if (known === null) return;
  state.earlier.set(channelId, known === undefined || earlier === null ? earlier : Math.min(known, earlier));
}

function onEvent(type, data) {
  if (type === 'ready') {
    if (!data.replayed) refresh().catch((error) => showToast($('toasts'), error.message));
    return;
  }
  if (type === 'channel') state.channels.set(data.id, data);
  if (type === 'message') {
    const isNew = upsert(data);
    const mine = data.author.kind === 'user' && data.author.userId === state.user;
    if (isNew && !mine && data.channelId !== state.channelId) {
      state.unread.set(data.channelId, (state.unread.get(data.channelId) ?? 0) + 1);
    }
  }
  if (type === 'ephemeral') {
    state.ephemerals.push(data);
    state.stickToBottom = true;
    // A refusal came back: the buttons that were waiting for the click to land can be used again.
    for (const button of document.querySelectorAll('button.is-busy, button[data-busy]')) release(button);
  }
  scheduleRender();
}

function onConnection(connection) {
  const back = connection === 'live' && $('connection').dataset.state !== 'live';
  $('connection').dataset.state = connection;
  $('connection-text').textContent =
    connection === 'live' ? 'Live' : connection === 'connecting' ? 'Reconnecting…' : 'Offline';
  if (back) sendWaiting(app);
}

// ---- rendering -----------------------------------------------------------------------------------------

let renderQueued = false;
function scheduleRender() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    render();
  });
}

function render() {
  const channel = state.channels.get(state.channelId);
  renderChannelList($('channel-list'), [...state.channels.values()], state.channelId, state.unread);
  if (!channel) return;
  $('channel-title').textContent = channel.name;
  const earlier = state.earlier.get(channel.id);
  $('load-earlier').hidden = earlier === null || earlier === undefined;
  $('composer-input').placeholder = `Message #${channel.name}`;
  $('thread-channel').textContent = `#${channel.name}`;
  document.title = `#${channel.name} · ${state.info.botName} playground`;

  const context = { now: Date.now(), users: state.users.map((user) => user.id), botName: state.info.botName };
  const messages = [...state.messages.values()].filter((message) => message.channelId === channel.id);
  const ephemerals = state.ephemerals.filter(
    (ephemeral) => ephemeral.channelId === channel.id && ephemeral.userId === state.user,
  );
  keepAtBottom($('messages'), () =>
    syncList($('messages'), channelItems({ channel, messages, ephemerals, context })),
  );

  const root = state.threadId && state.messages.get(state.threadId);
  $('thread').hidden = !root;
  $('app').classList.toggle('thread-open', Boolean(root));
  if (root) {
    keepAtBottom($('thread-messages'), () =>
      syncList($('thread-messages'), threadItems({ root, messages, ephemerals, context })),
    );
  }
  state.stickToBottom = false;
}

/** Follows new messages when the reader is at the bottom (or just posted); leaves them alone when scrolled up. */
function keepAtBottom(list, update) {
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 120;
  update();
  if (atBottom || state.stickToBottom) list.scrollTop = list.scrollHeight;
}

// ---- people and channels -------------------------------------------------------------------------------

function setUser(userId) {
  const user = state.users.find((candidate) => candidate.id === userId) ?? state.users[0];
  state.user = user.id;
  localStorage.setItem(USER_KEY, user.id);
  $('you-are').value = user.id;
  const avatar = $('you-avatar');
  avatar.className = `avatar avatar--sm avatar--hue-${hue(user.id)}`;
  avatar.textContent = initials(user.displayName);
  $('composer-as').textContent = `posting as ${user.displayName} (${user.roles.join(', ')})`;
  scheduleRender();
}

async function switchChannel(channelId) {
  if (!state.channels.has(channelId)) return;
  state.channelId = channelId;
  state.threadId = undefined;
  state.unread.delete(channelId);
  state.stickToBottom = true;
  if (location.hash !== `#${channelId}`) history.replaceState(null, '', `#${channelId}`);
  $('app').classList.remove('sidebar-open');
  render();
  await loadHistory(channelId);
}

function openThread(messageId) {
  state.threadId = messageId;
  state.stickToBottom = true;
  render();
  $('thread-input').focus({ preventScroll: true });
}

/** The model dot: green when the model answers, red when it is configured but down or missing. */
function showModel(model) {
  const down = model.configured && (model.state === 'unreachable' || model.state === 'missing');
  $('engine').dataset.kind = model.configured ? (down ? 'model-down' : 'model') : 'command';
  $('engine').title = model.detail ?? '';
  $('engine-text').textContent = !model.configured
    ? 'Command engine (no model)'
    : down
      ? `Model: ${model.name} (${model.state === 'missing' ? 'not on the server' : 'unreachable'})`
      : `Model: ${model.name}`;
}

async function start() {
  wireControls({ state, upsert, render, openThread, setUser, switchChannel });
  $('load-earlier').addEventListener('click', () =>
    loadEarlier().catch((error) => showToast($('toasts'), error.message)),
  );
  const info = await api.get('/api/info');
  state.info = info;
  state.users = info.users;
  $('workspace-name').textContent = info.botName;
  $('you-are').innerHTML = '';
  for (const user of info.users) {
    $('you-are').append(new Option(`${user.displayName} · ${user.roles.join(', ')}`, user.id));
  }
  setUser(localStorage.getItem(USER_KEY) ?? info.users[0].id);
  showModel(info.model);
  // The server caches its check of the model; asking now and then keeps the dot true without load.
  setInterval(
    () =>
      api.get('/api/info').then(
        (latest) => showModel(latest.model),
        () => {},
      ),
    30_000,
  );
  $('model-banner').hidden = info.model.configured || sessionStorage.getItem(BANNER_KEY) === 'hidden';
  // On a phone the examples would fill the screen; they stay one tap away.
  if (matchMedia('(max-width: 760px)').matches) $('banner-more').open = false;
  $('channel-topic').textContent = `Mention @${info.botName} with a task, or type ${info.slashCommand} help`;
  state.channelId = location.hash.slice(1) || info.defaultChannel;
  followEvents(state.clientId, { onEvent, onState: onConnection });
  setInterval(() => tickCountdowns(document, Date.now()), 1000);
}

start().catch((error) => {
  onConnection('offline');
  showToast($('toasts'), `The playground could not start: ${error.message}`);
});
