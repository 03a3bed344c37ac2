// What the fake Slack workspace holds: users, groups, channels, and every message the bot posted or changed.

export interface FakeUser {
  id: string;
  name: string;
  realName?: string;
  displayName?: string;
  isBot?: boolean;
}

export interface FakeUserGroup {
  id: string;
  handle: string;
  users: string[];
  /** When false, usergroups.list leaves `users` out, as Slack does for very large groups. */
  listUsers?: boolean;
}

/** A message as the bot left it; `history` holds each earlier rendering, oldest first. */
export interface FakeMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  blocks: unknown[];
  user: string;
  bot_id: string;
  history: Array<{ text: string; blocks: unknown[] }>;
}

export interface FakeEphemeral {
  channel: string;
  user: string;
  text: string;
  thread_ts?: string;
}

export interface FakeFile {
  id: string;
  filename: string;
  title?: string;
  content: string;
  channel?: string;
  thread_ts?: string;
  completed: boolean;
}

/** A POST to a response_url (`respond()` in Bolt). */
export interface FakeResponse {
  id: string;
  body: Record<string, unknown>;
}

export const FAKE_BOT = {
  userId: 'UBOT',
  botId: 'BBOT',
  teamId: 'T0001',
  name: 'opsbot',
} as const;

/** A modal the bot opened with views.open, for a test to read and submit. */
export interface FakeView {
  id: string;
  triggerId: string;
  view: Record<string, unknown>;
}

export class FakeSlackState {
  readonly messages: FakeMessage[] = [];
  readonly views: FakeView[] = [];
  /** Trigger ids a test has let expire: views.open answers them with `expired_trigger_id`. */
  readonly expiredTriggers = new Set<string>();
  readonly ephemerals: FakeEphemeral[] = [];
  readonly files: FakeFile[] = [];
  readonly responses: FakeResponse[] = [];
  readonly users = new Map<string, FakeUser>();
  readonly channels = new Map<string, string>();
  usergroups: FakeUserGroup[] = [];
  private counter = 0;

  nextTs(): string {
    this.counter += 1;
    return `${1_767_225_600 + this.counter}.${String(this.counter).padStart(6, '0')}`;
  }

  nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}${String(this.counter).padStart(8, '0')}`;
  }

  addUser(user: FakeUser): this {
    this.users.set(user.id, user);
    return this;
  }

  message(channel: string, ts: string): FakeMessage | undefined {
    return this.messages.find((message) => message.channel === channel && message.ts === ts);
  }

  /** The thread's root (when the bot posted it) and its replies, in order. */
  thread(channel: string, threadTs: string): FakeMessage[] {
    return this.messages.filter(
      (message) => message.channel === channel && (message.ts === threadTs || message.thread_ts === threadTs),
    );
  }

  /** Top-level messages in a channel. */
  topLevel(channel: string): FakeMessage[] {
    return this.messages.filter((message) => message.channel === channel && !message.thread_ts);
  }
}
