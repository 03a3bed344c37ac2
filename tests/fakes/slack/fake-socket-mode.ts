// A fake Socket Mode server: hands out ws:// URLs through the fake Web API, says hello, sends envelopes, records acks.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { FakeSlackApi } from './fake-slack-api.js';

export type EnvelopeType = 'events_api' | 'slash_commands' | 'interactive';

export interface SocketAck {
  envelope_id: string;
  payload?: unknown;
  /** Milliseconds from sending the envelope to receiving its ack. */
  ms: number;
}

export class FakeSocketModeServer {
  readonly acks: SocketAck[] = [];
  readonly connections: WebSocket[] = [];
  private readonly server: WebSocketServer;
  private readonly waiting = new Map<string, { sentAt: number; resolve: (ack: SocketAck) => void }>();
  private readonly helloWaiters: Array<() => void> = [];

  private constructor(server: WebSocketServer) {
    this.server = server;
    server.on('connection', (socket) => this.accept(socket));
  }

  static async start(api: FakeSlackApi): Promise<FakeSocketModeServer> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', () => resolve());
      server.once('error', reject);
    });
    const fake = new FakeSocketModeServer(server);
    api.socketUrl = fake.url;
    return fake;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/link/?ticket=fake`;
  }

  /** Resolves once a client has connected and been greeted. */
  connected(): Promise<void> {
    if (this.open().length > 0) return Promise.resolve();
    return new Promise((resolve) => this.helloWaiters.push(resolve));
  }

  /** Sends an envelope to the connected client and resolves with its ack. */
  send(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    options: { retryAttempt?: number; retryReason?: string; timeoutMs?: number } = {},
  ): Promise<SocketAck> {
    const socket = this.open()[0];
    if (!socket) return Promise.reject(new Error('no Socket Mode client is connected'));
    const envelopeId = randomUUID();
    const envelope = {
      envelope_id: envelopeId,
      type,
      payload,
      accepts_response_payload: type !== 'events_api',
      ...(type === 'events_api'
        ? { retry_attempt: options.retryAttempt ?? 0, retry_reason: options.retryReason ?? '' }
        : {}),
    };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(envelopeId);
        reject(new Error(`no ack for ${type} envelope within ${options.timeoutMs ?? 5_000} ms`));
      }, options.timeoutMs ?? 5_000);
      this.waiting.set(envelopeId, {
        sentAt: performance.now(),
        resolve: (ack) => {
          clearTimeout(timer);
          resolve(ack);
        },
      });
      socket.send(JSON.stringify(envelope));
    });
  }

  /** Asks clients to reconnect, as Slack does before it rotates a connection. */
  disconnectClients(): void {
    for (const socket of this.open())
      socket.send(JSON.stringify({ type: 'disconnect', reason: 'refresh_requested' }));
  }

  async close(): Promise<void> {
    for (const socket of this.connections) socket.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private open(): WebSocket[] {
    return this.connections.filter((socket) => socket.readyState === socket.OPEN);
  }

  private accept(socket: WebSocket): void {
    this.connections.push(socket);
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
      if (!message.envelope_id) return;
      const waiter = this.waiting.get(message.envelope_id);
      const ack: SocketAck = {
        envelope_id: message.envelope_id,
        ...(message.payload === undefined ? {} : { payload: message.payload }),
        ms: waiter ? performance.now() - waiter.sentAt : Number.NaN,
      };
      this.acks.push(ack);
      this.waiting.delete(message.envelope_id);
      waiter?.resolve(ack);
    });
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.open().length,
        debug_info: { host: 'fake-socket-mode', approximate_connection_time: 3600 },
        connection_info: { app_id: 'A0FAKE' },
      }),
    );
    for (const resolve of this.helloWaiters.splice(0)) resolve();
  }
}
