// A fake Discord gateway (JSON, no compression): HELLO, IDENTIFY -> READY and GUILD_CREATE, heartbeats, RESUME.
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { guildCreatePayload, userPayload } from './discord-payloads.js';
import type { FakeDiscordApi } from './fake-discord-api.js';
import { FAKE_DISCORD_BOT, MESSAGE_CONTENT_INTENT } from './fake-discord-state.js';

export interface IdentifyPayload {
  token: string;
  intents: number;
  properties?: Record<string, string>;
  shard?: [number, number];
}

interface GatewaySession {
  id: string;
  intents: number;
  sequence: number;
  /** Every dispatch of the session, so a resume can replay what the client missed. */
  events: Array<{ op: 0; t: string; s: number; d: unknown }>;
  socket: WebSocket | undefined;
}

export interface GatewayOptions {
  /** Milliseconds; discord.js sends its first heartbeat after a random part of it. */
  heartbeatIntervalMs?: number;
}

export class FakeDiscordGateway {
  readonly identifies: IdentifyPayload[] = [];
  readonly resumes: Array<{ session_id: string; seq: number }> = [];
  readonly closeCodes: number[] = [];
  heartbeats = 0;
  /** When true, an IDENTIFY asking for MessageContent is closed with 4014, as for an app without the intent. */
  refuseMessageContent = false;
  private readonly sessions = new Map<string, GatewaySession>();
  /** Sockets that connected while handshakes were held: they get HELLO on `releaseHandshakes`. */
  private held: WebSocket[] | undefined;
  private readonly waiters: Array<{ test: () => boolean; resolve: () => void }> = [];
  private sessionCounter = 0;

  private constructor(
    private readonly server: WebSocketServer,
    private readonly api: FakeDiscordApi,
    private readonly options: GatewayOptions,
  ) {
    server.on('connection', (socket) => this.accept(socket));
  }

  static async start(api: FakeDiscordApi, options: GatewayOptions = {}): Promise<FakeDiscordGateway> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', () => resolve());
      server.once('error', reject);
    });
    const gateway = new FakeDiscordGateway(server, api, options);
    api.gatewayUrl = gateway.url;
    api.dispatch = (type, data) => {
      if (gateway.current()) gateway.dispatch(type, data);
    };
    return gateway;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The intents of the live session, or undefined before IDENTIFY. */
  get intents(): number | undefined {
    return this.current()?.intents;
  }

  /** Sends a dispatch on the live session; while the socket is down it is kept for the resume. */
  dispatch(type: string, data: unknown): number {
    const session = this.current();
    if (!session) throw new Error('no client has identified with the fake gateway');
    session.sequence += 1;
    const event = { op: 0 as const, t: type, s: session.sequence, d: data };
    session.events.push(event);
    if (session.socket?.readyState === session.socket?.OPEN) session.socket?.send(JSON.stringify(event));
    return event.s;
  }

  /** New connections wait for HELLO until `releaseHandshakes`, so a reconnecting client stays reconnecting. */
  holdHandshakes(): void {
    this.held ??= [];
  }

  releaseHandshakes(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const socket of held) this.hello(socket);
  }

  /** Sends a dispatch already sent on this session again, as a new event (Discord may deliver an event twice). */
  redeliver(type: string, test: (data: unknown) => boolean): number {
    const event = this.current()?.events.find((candidate) => candidate.t === type && test(candidate.d));
    if (!event) throw new Error(`the fake gateway sent no ${type} like that`);
    return this.dispatch(type, event.d);
  }

  /** Cuts every connection without a close frame, so the client resumes (close code 1006). */
  dropConnections(): void {
    for (const session of this.sessions.values()) {
      session.socket?.terminate();
      session.socket = undefined;
    }
  }

  /**
   * Resolves once `count` sessions have been sent READY and every GUILD_CREATE. The client turns ready a moment
   * later, on its own; wait for `Events.ClientReady` for that.
   */
  sessionsStarted(count = 1): Promise<void> {
    return this.until(() => this.sessions.size >= count);
  }

  /** Sessions whose socket is open now: a client killed or destroyed drops out (Discord allows one per token). */
  connectedSessions(): string[] {
    return [...this.sessions.values()]
      .filter((session) => session.socket !== undefined && session.socket.readyState === session.socket.OPEN)
      .map((session) => session.id);
  }

  /** Resolves once `count` RESUMEs have been answered. */
  resumed(count = 1): Promise<void> {
    return this.until(() => this.resumes.length >= count);
  }

  /** Resolves once the gateway has closed a connection with `code`. */
  closedWith(code: number): Promise<void> {
    return this.until(() => this.closeCodes.includes(code));
  }

  async close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private until(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  private settle(): void {
    for (const waiter of [...this.waiters]) {
      if (!waiter.test()) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  /** The newest session: the fake serves one client at a time. */
  private current(): GatewaySession | undefined {
    return [...this.sessions.values()].at(-1);
  }

  private accept(socket: WebSocket): void {
    socket.on('message', (data) =>
      this.receive(socket, JSON.parse(String(data)) as { op: number; d: unknown }),
    );
    if (this.held) this.held.push(socket);
    else this.hello(socket);
  }

  private hello(socket: WebSocket): void {
    socket.send(
      JSON.stringify({ op: 10, d: { heartbeat_interval: this.options.heartbeatIntervalMs ?? 41_250 } }),
    );
  }

  private receive(socket: WebSocket, payload: { op: number; d: unknown }): void {
    if (payload.op === 1) {
      this.heartbeats += 1;
      socket.send(JSON.stringify({ op: 11 }));
    } else if (payload.op === 2) {
      this.identify(socket, payload.d as IdentifyPayload);
    } else if (payload.op === 6) {
      this.resume(socket, payload.d as { session_id: string; seq: number });
    }
    this.settle();
  }

  private identify(socket: WebSocket, identify: IdentifyPayload): void {
    this.identifies.push(identify);
    if (this.refuseMessageContent && (identify.intents & MESSAGE_CONTENT_INTENT) !== 0) {
      this.closeCodes.push(4014);
      socket.close(4014, 'Disallowed intent(s).');
      return;
    }
    this.sessionCounter += 1;
    const session: GatewaySession = {
      id: `fake-session-${this.sessionCounter}`,
      intents: identify.intents,
      sequence: 0,
      events: [],
      socket,
    };
    this.sessions.set(session.id, session);
    const bot = { id: FAKE_DISCORD_BOT.userId, username: FAKE_DISCORD_BOT.username, bot: true };
    const guilds = [...this.api.guilds.values()];
    this.dispatch('READY', {
      v: 10,
      user: { ...userPayload(bot), verified: true, flags: 0 },
      guilds: guilds.map((guild) => ({ id: guild.id, unavailable: true })),
      session_id: session.id,
      resume_gateway_url: this.url,
      shard: identify.shard ?? [0, 1],
      application: { id: FAKE_DISCORD_BOT.applicationId, flags: 0 },
      private_channels: [],
    });
    for (const guild of guilds) {
      const channels = [...this.api.channels.values()].filter((channel) => channel.guildId === guild.id);
      this.dispatch('GUILD_CREATE', guildCreatePayload(guild, channels, bot));
    }
  }

  private resume(socket: WebSocket, resume: { session_id: string; seq: number }): void {
    const session = this.sessions.get(resume.session_id);
    if (!session) {
      socket.send(JSON.stringify({ op: 9, d: false }));
      return;
    }
    this.resumes.push(resume);
    session.socket = socket;
    for (const event of session.events) if (event.s > resume.seq) socket.send(JSON.stringify(event));
    this.dispatch('RESUMED', null);
  }
}
