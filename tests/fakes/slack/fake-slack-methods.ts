// The Web API methods the fake answers, with the response shapes PROTOCOLS.md lists for each.
import { FAKE_BOT, type FakeSlackState } from './fake-slack-state.js';

export type Args = Record<string, unknown>;
export type MethodAnswer = Record<string, unknown>;

export interface MethodContext {
  state: FakeSlackState;
  baseUrl: string;
  token: string | undefined;
  /** Where apps.connections.open sends Socket Mode clients. */
  socketUrl: string | undefined;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const fail = (error: string): MethodAnswer => ({ ok: false, error });

interface BlockShape {
  type?: string;
  text?: { text?: string };
  elements?: { action_id?: string }[];
}

/** What Slack refuses with `invalid_blocks`: over 50 blocks, an over-long header or section, a repeated action_id. */
function blocksProblem(blocks: unknown[]): string | undefined {
  if (blocks.length > 50) return 'more than 50 blocks';
  const actionIds = new Set<string>();
  for (const block of blocks as BlockShape[]) {
    const length = block.text?.text?.length ?? 0;
    if (block.type === 'header' && length > 150) return 'a header over 150 characters';
    if (block.type === 'section' && length > 3_000) return 'a section over 3,000 characters';
    for (const element of block.elements ?? []) {
      if (element.action_id === undefined) continue;
      if (actionIds.has(element.action_id)) return `action_id ${element.action_id} is used twice`;
      actionIds.add(element.action_id);
    }
  }
  return undefined;
}

const invalidBlocks = (problem: string): MethodAnswer => ({
  ok: false,
  error: 'invalid_blocks',
  errors: [problem],
});

export const METHODS: Record<string, (args: Args, context: MethodContext) => MethodAnswer> = {
  'auth.test': (_args, { baseUrl }) => ({
    ok: true,
    url: `${baseUrl}/`,
    team: 'Fake Team',
    user: FAKE_BOT.name,
    team_id: FAKE_BOT.teamId,
    user_id: FAKE_BOT.userId,
    bot_id: FAKE_BOT.botId,
  }),

  'apps.connections.open': (_args, { token, socketUrl }) => {
    if (!token?.startsWith('xapp-')) return fail('not_allowed_token_type');
    if (!socketUrl) return fail('fake_has_no_socket_mode_server');
    return { ok: true, url: socketUrl };
  },

  'chat.postMessage': (args, { state }) => {
    const channel = str(args.channel);
    if (!channel) return fail('channel_not_found');
    const text = str(args.text) ?? '';
    const blocks = Array.isArray(args.blocks) ? args.blocks : [];
    if (text === '' && blocks.length === 0) return fail('no_text');
    const problem = blocksProblem(blocks);
    if (problem) return invalidBlocks(problem);
    const ts = state.nextTs();
    const threadTs = str(args.thread_ts);
    const message = {
      channel,
      ts,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      text,
      blocks,
      user: FAKE_BOT.userId,
      bot_id: FAKE_BOT.botId,
      history: [],
    };
    state.messages.push(message);
    return { ok: true, channel, ts, message: { type: 'message', ...message, history: undefined } };
  },

  'chat.update': (args, { state }) => {
    const channel = str(args.channel) ?? '';
    const message = state.message(channel, str(args.ts) ?? '');
    if (!message) return fail('message_not_found');
    const problem = blocksProblem(Array.isArray(args.blocks) ? args.blocks : []);
    if (problem) return invalidBlocks(problem);
    message.history.push({ text: message.text, blocks: message.blocks });
    message.text = str(args.text) ?? '';
    message.blocks = Array.isArray(args.blocks) ? args.blocks : [];
    return { ok: true, channel, ts: message.ts, text: message.text };
  },

  // A modal needs a fresh trigger_id (valid for 3 s, once) and a title and button texts of at most 24 characters.
  'views.open': (args, { state }) => {
    const triggerId = str(args.trigger_id);
    const view = args.view as Record<string, unknown> | undefined;
    if (!triggerId) return fail('invalid_arguments');
    if (state.expiredTriggers.has(triggerId)) return fail('expired_trigger_id');
    if (state.views.some((open) => open.triggerId === triggerId)) return fail('exchanged_trigger_id');
    if (view?.type !== 'modal') return fail('invalid_arguments');
    for (const field of ['title', 'submit', 'close']) {
      const text = (view[field] as { text?: string } | undefined)?.text ?? '';
      if (text.length > 24) return fail('invalid_arguments');
    }
    const blocks = Array.isArray(view.blocks) ? view.blocks : [];
    if (blocks.length === 0 || blocks.length > 100) return fail('invalid_arguments');
    if (String(view.private_metadata ?? '').length > 3000) return fail('invalid_arguments');
    const id = state.nextId('V');
    state.views.push({ id, triggerId, view });
    return { ok: true, view: { id, ...view } };
  },

  'chat.postEphemeral': (args, { state }) => {
    const channel = str(args.channel);
    const user = str(args.user);
    if (!channel || !user) return fail('invalid_arguments');
    const threadTs = str(args.thread_ts);
    state.ephemerals.push({
      channel,
      user,
      text: str(args.text) ?? '',
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    return { ok: true, message_ts: state.nextTs() };
  },

  'conversations.replies': (args, { state }) => {
    const channel = str(args.channel) ?? '';
    const messages = state.thread(channel, str(args.ts) ?? '');
    if (messages.length === 0) return fail('thread_not_found');
    return {
      ok: true,
      messages: messages.map(({ history: _history, ...message }) => message),
      has_more: false,
    };
  },

  'conversations.info': (args, { state }) => {
    const channel = str(args.channel) ?? '';
    const name = state.channels.get(channel);
    if (name === undefined) return fail('channel_not_found');
    return { ok: true, channel: { id: channel, name, is_channel: true } };
  },

  'users.info': (args, { state }) => {
    const user = state.users.get(str(args.user) ?? '');
    if (!user) return fail('user_not_found');
    return {
      ok: true,
      user: {
        id: user.id,
        name: user.name,
        real_name: user.realName ?? user.name,
        is_bot: user.isBot ?? false,
        profile: { display_name: user.displayName ?? '', real_name: user.realName ?? user.name },
      },
    };
  },

  'usergroups.list': (args, { state }) => ({
    ok: true,
    usergroups: state.usergroups.map((group) => ({
      id: group.id,
      handle: group.handle,
      name: group.handle,
      ...((args.include_users === true || args.include_users === 'true') && group.listUsers !== false
        ? { users: group.users }
        : {}),
    })),
  }),

  'usergroups.users.list': (args, { state }) => {
    const group = state.usergroups.find((candidate) => candidate.id === str(args.usergroup));
    return group ? { ok: true, users: group.users } : fail('no_such_subteam');
  },

  'files.getUploadURLExternal': (args, { state, baseUrl }) => {
    const filename = str(args.filename);
    if (!filename || args.length === undefined) return fail('invalid_arguments');
    const id = state.nextId('F');
    state.files.push({ id, filename, content: '', completed: false });
    return { ok: true, upload_url: `${baseUrl}/upload/${id}`, file_id: id };
  },

  'files.completeUploadExternal': (args, { state }) => {
    const listed = Array.isArray(args.files) ? (args.files as Array<{ id?: string; title?: string }>) : [];
    const done = [];
    for (const entry of listed) {
      const file = state.files.find((candidate) => candidate.id === entry.id);
      if (!file) return fail('file_not_found');
      const channel = str(args.channel_id);
      const threadTs = str(args.thread_ts);
      Object.assign(file, {
        completed: true,
        ...(entry.title ? { title: entry.title } : {}),
        ...(channel ? { channel } : {}),
        ...(threadTs ? { thread_ts: threadTs } : {}),
      });
      done.push({ id: file.id, title: file.title ?? file.filename });
    }
    return { ok: true, files: done };
  },
};
