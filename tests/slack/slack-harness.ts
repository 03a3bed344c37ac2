// The real Bolt app, router and kernel against the fake Slack Web API (and Socket Mode), with helpers per flow.
import type { ChatPort } from '../../agent/chat-port.js';
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import type { KernelOptions } from '../../agent/kernel-options.js';
import { silentLogger } from '../../agent/logger.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { settingsToolPolicy } from '../../agent/policy/settings-tool-policy.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import type { Tool } from '../../agent/tool.js';
import { type Settings, SettingsSchema } from '../../bot/config/settings-schema.js';
import { HttpServer } from '../../bot/http/http-server.js';
import { Router } from '../../bot/router/router.js';
import { type SlackAdapter, startSlack } from '../../bot/slack/index.js';
import type { RenderedMessage } from '../chat-port-contract.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fakes/openai-server.js';
import {
  FAKE_BOT,
  type FakeMessage,
  type FakeSlackApi,
  startFakeSlackApi,
} from '../fakes/slack/fake-slack-api.js';
import type { FakeView } from '../fakes/slack/fake-slack-state.js';
import { FakeSocketModeServer } from '../fakes/slack/fake-socket-mode.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import {
  blockActions,
  buttonsOf,
  eventCallback,
  slashCommand,
  viewSubmission,
} from '../fakes/slack/slack-payload-builders.js';
import { FORM_CONTENT_TYPE, formBody, postSigned } from '../fakes/slack/slack-signing.js';
import { ToolProbe, testTools } from '../kernel/harness.js';

export type SlackMode = 'http' | 'socket';
export const SIGNING_SECRET = 'test-signing-secret';
export const CHANNEL = 'C0OPS';

/** Alice operates, Bob approves through the SADMINS user group, Dave is an admin by id, Carol has no roles. */
export const USERS = { alice: 'UALICE', bob: 'UBOB', carol: 'UCAROL', dave: 'UDAVE' } as const;

export const settings: Settings = SettingsSchema.parse({
  permissions: {
    roles: {
      operator: { tools: ['*'], risks: ['read', 'write', 'danger'], approve: ['write_*'] },
      admin: { tools: ['*'], approve: ['*'], admin: true },
    },
    identities: {
      'slack:UALICE': { roles: ['operator'] },
      'slack_group:SADMINS': { roles: ['admin'] },
      'slack:UDAVE': { roles: ['admin'] },
    },
  },
});

export interface Delivery {
  /** HTTP status, or 200 for a Socket Mode ack. */
  status: number;
  /** Time until the ack. */
  ms: number;
  body: string;
}

export interface SlackHarnessOptions {
  mode?: SlackMode;
  model?: boolean;
  allowedBotIds?: string[];
  paceIntervalMs?: number;
  /** permissions.on_denial: what a run does when its call is denied or its approval expires. */
  onDenial?: 'continue' | 'stop';
  /** In place of the harness's own settings. */
  settings?: Settings;
  /** Tools beside the shared test tools, given the harness's probe. */
  tools?: (probe: ToolProbe) => Tool[];
}

/** The parts of a click's payload a forged click changes: where it says it came from. */
export interface ForgeableClick {
  team: { id: string; domain: string };
  channel: { id: string; name: string };
  container: { channel_id: string };
  user: { team_id: string };
}

export class SlackHarness {
  readonly clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0));
  readonly probe = new ToolProbe();
  private events = 0;
  private triggers = 0;

  private constructor(
    readonly mode: SlackMode,
    readonly api: FakeSlackApi,
    readonly openai: FakeOpenAIServer,
    readonly socket: FakeSocketModeServer | undefined,
    /** HTTP mode: the bot's one HTTP server, with Slack mounted at /slack/events as `npm start` mounts it. */
    readonly server: HttpServer | undefined,
  ) {}

  kernel!: Kernel;
  router!: Router;
  settings: Settings = settings;
  private kernelOptions!: KernelOptions;
  slack!: SlackAdapter;

  static async start(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
    const mode = options.mode ?? 'http';
    const api = await startFakeSlackApi();
    api
      .addUser({ id: USERS.alice, name: 'alice', displayName: 'Alice' })
      .addUser({ id: USERS.bob, name: 'bob', realName: 'Bob Builder' })
      .addUser({ id: USERS.carol, name: 'carol', displayName: 'Carol' })
      .addUser({ id: USERS.dave, name: 'dave', displayName: 'Dave' });
    api.channels.set(CHANNEL, 'ops');
    api.usergroups = [{ id: 'SADMINS', handle: 'admins', users: [USERS.bob] }];
    const openai = await startFakeOpenAIServer();
    const socket = mode === 'socket' ? await FakeSocketModeServer.start(api) : undefined;
    const server =
      mode === 'http' ? new HttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger }) : undefined;
    await server?.listen();
    const harness = new SlackHarness(mode, api, openai, socket, server);
    await harness.build(options);
    return harness;
  }

  private async build(options: SlackHarnessOptions): Promise<void> {
    const { clock } = this;
    if (options.settings) this.settings = options.settings;
    const settings = options.onDenial
      ? { ...this.settings, permissions: { ...this.settings.permissions, on_denial: options.onDenial } }
      : this.settings;
    this.settings = settings;
    const store = new MemoryStore(clock);
    const audit = new AuditLog(store, { clock });
    // The kernel needs a chat port before Slack has started; main.ts does the same with its platform dispatcher.
    const chat: ChatPort = {
      post: (conversation, message) => this.slack.port.post(conversation, message),
      update: (ref, message) => this.slack.port.update(ref, message),
    };
    this.kernelOptions = {
      store,
      tools: [...testTools(this.probe), ...(options.tools?.(this.probe) ?? [])],
      ...(options.model === false
        ? {}
        : {
            model: createOpenAIModelClient({
              baseURL: this.openai.baseURL,
              apiKey: 'sk-test',
              model: 'fake-model',
              timeoutMs: 5_000,
              maxRetries: 0,
            }),
          }),
      policy: (registry) => settingsToolPolicy(settings.permissions, registry),
      approvals: {
        audit,
        permissions: settings.permissions,
      },
      chat,
      clock,
      // As compose.ts passes them: a task naming an alias asks for its tool.
      aliases: settings.aliases,
      limits: { toolTimeoutMs: 1_000 },
    };
    this.kernel = new Kernel(this.kernelOptions);
    this.router = new Router({ kernel: this.kernel, settings, logger: silentLogger, clock });
    this.slack = await startSlack({
      opsbot: { store },
      router: this.router,
      environment: {
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_APP_TOKEN: this.mode === 'socket' ? 'xapp-test' : undefined,
        SLACK_API_URL: this.api.apiUrl,
        SLACK_SLASH_COMMAND: '/ops',
      },
      settings,
      logger: silentLogger,
      clock,
      paceIntervalMs: options.paceIntervalMs ?? 0,
      ...(options.allowedBotIds ? { allowedBotIds: options.allowedBotIds } : {}),
    });
    const { slack } = this;
    this.server?.mount('/slack/events', (request, response) => slack.requestListener(request, response));
    await this.socket?.connected();
  }

  /** A second opsbot process over the same store, posting to the same Slack: another replica, or a worker. */
  newKernel(overrides: Partial<KernelOptions> = {}): Kernel {
    return new Kernel({ ...this.kernelOptions, ...overrides });
  }

  get eventsUrl(): string {
    return `${this.server!.url}/slack/events`;
  }

  // --- Deliveries, over HTTP (signed) or Socket Mode alike ---

  /** An Events API callback; returns its event_id with the delivery. */
  async event(
    event: Record<string, unknown>,
    options: { eventId?: string; retryNum?: number } = {},
  ): Promise<Delivery & { eventId: string }> {
    const eventId = options.eventId ?? `Ev${String(++this.events).padStart(8, '0')}`;
    const body = eventCallback(event, eventId, this.clock.now());
    if (this.socket) {
      const ack = await this.socket.send('events_api', body, {
        ...(options.retryNum ? { retryAttempt: options.retryNum, retryReason: 'timeout' } : {}),
      });
      return { status: 200, ms: ack.ms, body: '', eventId };
    }
    const headers: Record<string, string> = options.retryNum
      ? { 'x-slack-retry-num': String(options.retryNum), 'x-slack-retry-reason': 'http_timeout' }
      : {};
    const result = await postSigned(this.eventsUrl, JSON.stringify(body), {
      secret: SIGNING_SECRET,
      headers,
    });
    return { ...result, eventId };
  }

  /** `@opsbot <text>` at the top of the channel, or in a thread. */
  mention(user: string, text: string, options: { threadTs?: string; ts?: string; eventId?: string } = {}) {
    const ts = options.ts ?? this.api.nextTs();
    return this.event(
      {
        type: 'app_mention',
        user,
        text: `<@${FAKE_BOT.userId}> ${text}`,
        ts,
        channel: CHANNEL,
        ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
      },
      options.eventId ? { eventId: options.eventId } : {},
    ).then((delivery) => ({ ...delivery, ts }));
  }

  /** A plain reply in a thread (no mention). */
  threadReply(user: string, text: string, threadTs: string) {
    return this.event({
      type: 'message',
      channel_type: 'channel',
      user,
      text,
      ts: this.api.nextTs(),
      thread_ts: threadTs,
      channel: CHANNEL,
    });
  }

  async command(user: string, text: string): Promise<Delivery> {
    const triggerId = `trigger-${++this.triggers}`;
    const fields = slashCommand({
      command: '/ops',
      user,
      text,
      channel: CHANNEL,
      channelName: 'ops',
      triggerId,
      responseUrl: this.api.responseUrl(triggerId),
    });
    if (this.socket) {
      const ack = await this.socket.send('slash_commands', fields);
      return { status: 200, ms: ack.ms, body: JSON.stringify(ack.payload ?? {}) };
    }
    return postSigned(this.eventsUrl, formBody(fields), {
      secret: SIGNING_SECRET,
      contentType: FORM_CONTENT_TYPE,
    });
  }

  /**
   * Clicks the button with this label on a message the bot posted. `forge` may change the payload before it is
   * signed and sent: a click that names another channel or team.
   */
  async click(
    user: string,
    message: FakeMessage,
    label: string,
    forge?: (payload: ForgeableClick) => void,
  ): Promise<Delivery> {
    const button = buttonsOf(message).find((candidate) => candidate.text.text === label);
    if (!button) throw new Error(`no button "${label}" on message ${message.ts}`);
    const triggerId = `trigger-${++this.triggers}`;
    const payload = blockActions({
      user,
      message,
      button,
      channelName: 'ops',
      triggerId,
      actionTs: `${Math.floor(this.clock.now() / 1000)}.${String(this.triggers).padStart(6, '0')}`,
      responseUrl: this.api.responseUrl(triggerId),
    });
    forge?.(payload);
    if (this.socket) {
      const ack = await this.socket.send('interactive', payload);
      return { status: 200, ms: ack.ms, body: '' };
    }
    return postSigned(this.eventsUrl, formBody({ payload: JSON.stringify(payload) }), {
      secret: SIGNING_SECRET,
      contentType: FORM_CONTENT_TYPE,
    });
  }

  /** The trigger id the next click or command will carry. */
  get nextTrigger(): number {
    return this.triggers + 1;
  }

  /** Submits a modal the bot opened, with values by block and input id, as the person typed them. */
  async submitView(
    user: string,
    view: FakeView,
    values: Record<string, Record<string, string | null>>,
  ): Promise<Delivery> {
    const payload = viewSubmission({ user, view, values, triggerId: `trigger-${++this.triggers}` });
    if (this.socket) {
      const ack = await this.socket.send('interactive', payload);
      return { status: 200, ms: ack.ms, body: JSON.stringify(ack.payload ?? {}) };
    }
    return postSigned(this.eventsUrl, formBody({ payload: JSON.stringify(payload) }), {
      secret: SIGNING_SECRET,
      contentType: FORM_CONTENT_TYPE,
    });
  }

  // --- Waiting and reading ---

  /** Waits until every acked event has been handled to the end (the run finished or waits). */
  async settled(): Promise<void> {
    // Bolt acks an event a few microtasks before its listener starts the work, so look more than once.
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await this.slack.idle();
      await this.kernel.idle();
    }
  }

  /** What the thread shows now: every bot message in it, as last rendered. */
  thread(threadTs: string): RenderedMessage[] {
    return this.api.thread(CHANNEL, threadTs).map(renderSlackMessage);
  }

  threadText(threadTs: string): string {
    return this.thread(threadTs)
      .map((message) => message.text)
      .join('\n');
  }

  /** The bot's messages in a thread that have a button with this label. */
  withButton(threadTs: string, label: string): FakeMessage[] {
    return this.api
      .thread(CHANNEL, threadTs)
      .filter((message) => buttonsOf(message).some((button) => button.text.text === label));
  }

  responsesText(): string[] {
    return this.api.responses.map((response) => String(response.body.text ?? ''));
  }

  async close(): Promise<void> {
    await this.slack.stop();
    await this.slack.idle();
    await this.socket?.close();
    await this.server?.close();
    await this.api.close();
    await this.openai.close();
  }
}
