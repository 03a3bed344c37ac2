// One MCP server as a tool source: started at connect, its tools listed (and followed on list_changed), calls
// with a timeout, and a crash turned into a `down` state with the reason, then a restart with backoff. A start's
// transport is mcp-session.ts, the listing mcp-tool-listing.ts, one call mcp-tool-call.ts.
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { type Clock, systemClock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import { stableJson } from '../../agent/stable-json.js';
import { systemTimers, type Timers } from '../../agent/timers.js';
import type { NetworkGuard } from '../network-guard.js';
import { McpCallTimeoutError, McpServerDownError } from './mcp-connection-errors.js';
import type { McpServerEndpoint } from './mcp-endpoint.js';
import { restartDelayMs, STABLE_UP_MS } from './mcp-restart.js';
import { type McpSession, openMcpSession } from './mcp-session.js';
import { callMcpTool } from './mcp-tool-call.js';
import type { McpToolDefinition } from './mcp-tool-definition.js';
import { listMcpTools, type RejectedTool } from './mcp-tool-listing.js';

export type { CallToolResult, RejectedTool };
export { McpCallTimeoutError, McpServerDownError };

export type McpConnectionState = { kind: 'up' } | { kind: 'down'; since: number; reason: string };

export interface McpConnectionOptions {
  endpoint: McpServerEndpoint;
  /** Required for a `url` server: its host is checked before every start. */
  guard?: NetworkGuard;
  /** Where the stdio child's pass-through variables are read; process.env unless a test says otherwise. */
  parentEnvironment?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Drive the restart backoff and call timeouts; tests pass ManualTimers. */
  timers?: Timers;
  /** After each listing whose definitions differ from the last one (the first listing included). */
  onToolsChanged?: (tools: readonly McpToolDefinition[]) => void;
  onStateChanged?: (state: McpConnectionState) => void;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  /** The endpoint's timeout unless given. */
  timeoutMs?: number;
}

/**
 * Never throws from connect(): a server that cannot be started or reached is `down` with the reason and tried
 * again with backoff. Calls while down throw McpServerDownError (transient for the model). Every start is a
 * new generation; an event of an older one (a late close, a listing) is ignored.
 */
export class McpConnection {
  private current: McpConnectionState;
  private session: McpSession | undefined;
  private listed: McpToolDefinition[] = [];
  private rejected: RejectedTool[] = [];
  private generation = 0;
  private failures = 0;
  private upSince: number | undefined;
  private restartTimer: unknown;
  private closed = false;
  private lastStderr = '';
  private readonly clock: Clock;
  private readonly timers: Timers;

  constructor(private readonly options: McpConnectionOptions) {
    this.clock = options.clock ?? systemClock;
    this.timers = options.timers ?? systemTimers;
    this.current = { kind: 'down', since: this.clock.now(), reason: 'not started' };
  }

  get name(): string {
    return this.options.endpoint.name;
  }

  state(): McpConnectionState {
    return this.current;
  }

  /** The definitions of the last listing that succeeded (kept while down, so a restart can be compared). */
  tools(): readonly McpToolDefinition[] {
    return this.listed;
  }

  rejectedTools(): readonly RejectedTool[] {
    return this.rejected;
  }

  /** The end of the stdio server's stderr, from the running child or the last one that ended. */
  stderrTail(): string {
    return this.session?.stderrTail() ?? this.lastStderr;
  }

  /** Starts the server (or restarts it now, cancelling a pending backoff). Resolves once the first try ended. */
  async connect(): Promise<void> {
    if (this.closed || this.session) return;
    this.cancelRestart();
    await this.start();
  }

  async call(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions = {},
  ): Promise<CallToolResult> {
    const session = this.session;
    // A session still listing its tools is not up yet: its tools are not known to be what was asked for.
    if (!session || this.current.kind !== 'up') throw this.downError();
    return callMcpTool(session.client, name, args, {
      server: this.name,
      timeoutMs: options.timeoutMs ?? this.options.endpoint.timeoutMs,
      timers: this.timers,
      ...(options.signal ? { signal: options.signal } : {}),
      otherError: (error) => {
        if (this.session !== session) return this.downError();
        if (!(error instanceof McpError) && this.options.endpoint.url !== undefined) {
          // An HTTP server is only found gone when a request fails below the protocol (refused, reset, 5xx).
          this.lost(session.generation, `unreachable: ${errorMessage(error)}`);
          return this.downError();
        }
        return error;
      },
    });
  }

  /** Stops the server and any pending restart; the connection stays down with reason "closed". */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.generation += 1;
    this.cancelRestart();
    const session = this.session;
    this.session = undefined;
    if (session) await this.release(session);
    this.setState({ kind: 'down', since: this.clock.now(), reason: 'closed' });
  }

  private async start(): Promise<void> {
    this.generation += 1;
    const generation = this.generation;
    try {
      const session = await this.open(generation);
      if (generation !== this.generation) {
        await this.release(session);
        return;
      }
      this.session = session;
      const tools = await this.listAll(session);
      if (generation !== this.generation) return;
      this.upSince = this.clock.now();
      this.setState({ kind: 'up' });
      this.updateTools(tools);
    } catch (error) {
      this.lost(generation, errorMessage(error));
    }
  }

  private open(generation: number): Promise<McpSession> {
    return openMcpSession({
      endpoint: this.options.endpoint,
      generation,
      guard: this.options.guard,
      parentEnvironment: this.options.parentEnvironment ?? process.env,
      events: {
        onClose: (reason) => this.lost(generation, reason),
        onToolListChanged: () => this.relist(generation),
        onFailedStart: (stderrTail) => {
          this.lastStderr = stderrTail;
        },
      },
    });
  }

  private async listAll(session: McpSession): Promise<McpToolDefinition[]> {
    const listing = await listMcpTools(session.client, this.options.endpoint.timeoutMs);
    this.rejected = listing.rejected;
    return listing.tools;
  }

  private relist(generation: number): void {
    const session = this.session;
    if (!session || session.generation !== generation) return;
    this.listAll(session).then(
      (tools) => {
        if (this.session === session) this.updateTools(tools);
      },
      (error: unknown) => {
        if (this.session === session && !(error instanceof McpError))
          this.lost(generation, errorMessage(error));
      },
    );
  }

  private updateTools(tools: McpToolDefinition[]): void {
    if (stableJson(tools) === stableJson(this.listed)) return;
    this.listed = tools;
    this.options.onToolsChanged?.(tools);
  }

  /** The session of `generation` is gone: down with the reason, and a restart after the backoff. */
  private lost(generation: number, reason: string): void {
    if (generation !== this.generation || this.closed) return;
    this.generation += 1;
    const session = this.session;
    this.session = undefined;
    if (session) {
      this.lastStderr = session.stderrTail();
      void this.release(session);
    }
    const now = this.clock.now();
    if (this.upSince !== undefined && now - this.upSince >= STABLE_UP_MS) this.failures = 0;
    this.upSince = undefined;
    this.setState({ kind: 'down', since: now, reason });
    const delay = restartDelayMs(this.failures);
    this.failures += 1;
    this.restartTimer = this.timers.setTimeout(() => {
      this.restartTimer = undefined;
      void this.start();
    }, delay);
  }

  private async release(session: McpSession): Promise<void> {
    await session.release().catch(() => undefined);
  }

  private cancelRestart(): void {
    if (this.restartTimer === undefined) return;
    this.timers.clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  private downError(): McpServerDownError {
    const state = this.current;
    const down = state.kind === 'down' ? state : { since: this.clock.now(), reason: 'not connected' };
    return new McpServerDownError(this.name, down.since, down.reason);
  }

  private setState(state: McpConnectionState): void {
    const previous = this.current;
    this.current = state;
    if (previous.kind === 'up' && state.kind === 'up') return;
    this.options.onStateChanged?.(state);
  }
}
