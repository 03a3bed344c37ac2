// The `mcp:` servers as a live source of opsbot tools: each server's connection started with the bot, every listing
// named, given a risk and checked against the pins, and those held back switched off (not offered, calls refused)
// until an admin trusts them. A server that cannot be reached at start leaves the bot running without its tools
// until it answers; a tool trusted or listed while the bot runs is offered without a restart.
import { type Clock, systemClock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { Store } from '../../agent/store/store.js';
import { systemTimers, type Timers } from '../../agent/timers.js';
import type { Tool } from '../../agent/tool.js';
import type { LiveToolSource } from '../../agent/tool-registry.js';
import type { NetworkGuard } from '../network-guard.js';
import { McpConnection } from './mcp-connection.js';
import type { McpServerEndpoint } from './mcp-endpoint.js';
import { heldBackTools } from './mcp-held-back.js';
import { McpPinRepository } from './mcp-pin-repository.js';
import { definitionHash } from './mcp-pins.js';
import {
  type McpServerState,
  type McpServerStatus,
  makeServerTool,
  readServerPins,
  serverStateChanged,
  serverStatus,
} from './mcp-server-state.js';

export type { McpServerStatus };

import type { McpSettings } from './mcp-settings.js';
import type { McpToolDefinition } from './mcp-tool-definition.js';
import { mcpRegistryName, nameMcpTools } from './mcp-tool-names.js';

/** How often the pins are read again, so an `opsbot mcp trust` from another process switches tools back on. */
export const MCP_PIN_REFRESH_MS = 5_000;

export interface McpToolSourceOptions {
  settings: McpSettings;
  /** Each server's endpoint, headers already expanded (see mcpEndpoints). */
  endpoints: readonly McpServerEndpoint[];
  store: Store;
  logger: Logger;
  /** The names MCP tools may not take: the built-in, configured and custom tools'. */
  takenNames: readonly string[];
  guard?: NetworkGuard;
  parentEnvironment?: NodeJS.ProcessEnv;
  clock?: Clock;
  timers?: Timers;
  pinRefreshMs?: number;
}

export class McpToolSource implements LiveToolSource {
  private readonly servers: McpServerState[];
  private readonly repository: McpPinRepository;
  private readonly clock: Clock;
  private readonly timers: Timers;
  /** Warnings said once: a refused name, a rejected tool, an unconvertible schema. */
  private readonly warned = new Set<string>();
  private refreshTimer: unknown;
  private started = false;
  private closed = false;

  constructor(private readonly options: McpToolSourceOptions) {
    this.clock = options.clock ?? systemClock;
    this.timers = options.timers ?? systemTimers;
    this.repository = new McpPinRepository(options.store, this.clock);
    this.servers = options.endpoints.map((endpoint) => {
      const settings = options.settings.servers[endpoint.name];
      if (settings === undefined) throw new Error(`no settings for MCP server ${endpoint.name}`);
      const server: McpServerState = {
        name: endpoint.name,
        settings,
        seen: false,
        made: new Map(),
        unnamed: new Map(),
        heldBack: new Map(),
        pins: new Map(),
        pinProblem: undefined,
        downReason: undefined,
        work: Promise.resolve(),
        connection: new McpConnection({
          endpoint,
          ...(options.guard ? { guard: options.guard } : {}),
          ...(options.parentEnvironment ? { parentEnvironment: options.parentEnvironment } : {}),
          clock: this.clock,
          timers: this.timers,
          onToolsChanged: () => this.listingChanged(server),
          onStateChanged: (state) => {
            if (!this.closed) serverStateChanged(server, state, options.logger);
          },
        }),
      };
      return server;
    });
  }

  /**
   * Every tool made from the servers' listings now, held-back ones included (they are switched off). The set
   * changes while the bot runs: a server that comes up late, a new tool, a definition trusted anew.
   */
  tools(): Tool[] {
    return this.servers.flatMap((server) => [...server.made.values()].map((made) => made.tool));
  }

  /**
   * Starts every server at once and waits for each one's first try and its pins. Never throws for a server: one
   * that is down is warned about, and its tools join once it answers (it is tried again with backoff).
   */
  async start(): Promise<void> {
    const { logger } = this.options;
    await Promise.all(this.servers.map((server) => server.connection.connect()));
    for (const server of this.servers) {
      const state = server.connection.state();
      if (state.kind === 'down') {
        logger.warn(
          { server: server.name, reason: state.reason },
          `MCP server ${server.name} could not be reached (${state.reason}); the bot runs without its tools until it answers (it is tried again with backoff)`,
        );
      }
    }
    await Promise.all(this.servers.map((server) => this.sync(server)));
    this.started = true;
    const heldBack = this.status().flatMap((status) => status.heldBack);
    if (heldBack.length > 0) {
      logger.warn(
        { tools: heldBack.map((tool) => tool.name) },
        `MCP tools held back until an admin trusts them: ${heldBack.map((tool) => tool.refusal).join('; ')}`,
      );
    }
    logger.info({ tools: this.tools().map((tool) => tool.name) }, 'MCP tools ready');
    this.scheduleRefresh();
  }

  /** Reads every server's pins again and switches its tools on or off accordingly. */
  async refreshPins(): Promise<void> {
    await Promise.all(this.servers.map((server) => this.sync(server)));
  }

  /**
   * Whether `name` may still be listed: it is `<server>__…` for a server that has not answered yet, so a patrol
   * or alert check naming it is not refused at start.
   */
  awaits(name: string): boolean {
    return this.awaitedReason(name) !== undefined;
  }

  /** For a name `awaits`: that its server has not answered since start, with its state and what happens next. */
  awaitedReason(name: string): string | undefined {
    const server = this.servers.find(
      (candidate) => !this.listedOnce(candidate) && name.startsWith(mcpRegistryName(candidate.name, '')),
    );
    if (server === undefined) return undefined;
    const state = this.status().find((status) => status.server === server.name)?.state ?? 'down';
    return `${name} is a tool of MCP server ${server.name}, which has not answered since opsbot started (${state}); its tools are offered once it answers, and it is tried again with backoff`;
  }

  /** The server's tools as it listed them last (what `trust` accepts); empty for a server not configured. */
  listedTools(server: string): readonly McpToolDefinition[] {
    return this.servers.find((candidate) => candidate.name === server)?.connection.tools() ?? [];
  }

  /** Each server's state and held-back tools, for /readyz and the start-up log. */
  status(): McpServerStatus[] {
    return this.servers.map(serverStatus);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.refreshTimer !== undefined) this.timers.clearTimeout(this.refreshTimer);
    await Promise.all(this.servers.map((server) => server.connection.close()));
    await Promise.all(this.servers.map((server) => server.work));
  }

  /** A new listing: the tools are made again and checked against the pins held now (a changed one is off at
   * once), then the pins are read again, as a first sight may be due. */
  private listingChanged(server: McpServerState): void {
    if (this.closed) return;
    this.remake();
    void this.sync(server);
  }

  /** The server's pins read (first sight recorded when due), then every tool made and checked; one at a time. */
  private sync(server: McpServerState): Promise<void> {
    server.work = server.work.then(async () => {
      if (this.closed || !this.listedOnce(server)) return;
      try {
        await readServerPins(this.repository, server, { firstSight: !server.seen, now: this.clock.now() });
        server.seen = true;
        server.pinProblem = undefined;
      } catch (error) {
        // Unreadable pins trust nothing: every tool of the server is off until they read again.
        server.pinProblem = `the pins of MCP server ${server.name} cannot be read (${errorMessage(error)})`;
      }
      this.remake();
    });
    return server.work;
  }

  /** A server that never answered has nothing to check: its first listing is its first sight. */
  private listedOnce(server: McpServerState): boolean {
    return server.seen || server.connection.state().kind === 'up' || server.connection.tools().length > 0;
  }

  /**
   * Names every listed tool across the servers (a collision refuses both sides), makes a tool for each one whose
   * definition is new or changed, and decides which are held back. Synchronous: nothing is offered in between.
   */
  private remake(): void {
    const listing = this.servers.filter((server) => this.listedOnce(server));
    const naming = nameMcpTools(
      listing.map((server) => ({
        server: server.name,
        tools: server.connection.tools().map((tool) => tool.name),
        include: server.settings.tools.include,
        exclude: server.settings.tools.exclude,
      })),
      this.options.takenNames,
    );
    for (const refused of naming.refused) this.warnOnce({ tool: refused.name }, refused.message);
    for (const server of listing) {
      for (const rejected of server.connection.rejectedTools()) {
        this.warnOnce(
          { server: server.name, tool: rejected.name, problem: rejected.problem },
          'MCP tool left out',
        );
      }
      const definitions = new Map(
        server.connection.tools().map((definition) => [definition.name, definition]),
      );
      const appeared: string[] = [];
      for (const named of naming.named.filter((candidate) => candidate.server === server.name)) {
        const definition = definitions.get(named.tool)!;
        const hash = definitionHash(definition);
        if (server.made.get(named.tool)?.hash === hash) continue;
        if (!server.made.has(named.tool)) appeared.push(named.name);
        server.made.set(named.tool, {
          tool: makeServerTool(server, named.name, definition, (fields, message) =>
            this.warnOnce(fields, message),
          ),
          hash,
        });
      }
      server.unnamed = new Map(
        naming.refused
          .filter((refused) => refused.server === server.name && server.made.has(refused.tool))
          .map((refused) => [refused.tool, refused.message]),
      );
      if (this.started && appeared.length > 0) {
        this.options.logger.info({ server: server.name, tools: appeared }, 'MCP server lists new tools');
      }
      this.recheck(server);
    }
  }

  private recheck(server: McpServerState): void {
    const before = server.heldBack;
    server.heldBack =
      server.pinProblem === undefined
        ? heldBackTools(
            server.name,
            server.made.keys(),
            server.connection.tools(),
            server.pins,
            server.unnamed,
          )
        : new Map([...server.made.keys()].map((tool) => [tool, server.pinProblem!]));
    if (!this.started) return;
    for (const [tool, refusal] of server.heldBack) {
      if (before.get(tool) !== refusal) this.options.logger.warn({ server: server.name, tool }, refusal);
    }
    const switchedOn = [...before.keys()].filter((tool) => !server.heldBack.has(tool));
    if (switchedOn.length > 0) {
      this.options.logger.info(
        { server: server.name, tools: switchedOn },
        'MCP tools trusted and switched back on',
      );
    }
  }

  private warnOnce(fields: Record<string, unknown>, message: string): void {
    const key = `${JSON.stringify(fields)} ${message}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.options.logger.warn(fields, message);
  }

  private scheduleRefresh(): void {
    if (this.closed) return;
    this.refreshTimer = this.timers.setTimeout(() => {
      void this.refreshPins().finally(() => this.scheduleRefresh());
    }, this.options.pinRefreshMs ?? MCP_PIN_REFRESH_MS);
  }
}
