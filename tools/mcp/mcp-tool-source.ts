// The `mcp:` servers as a source of opsbot tools: each server's connection started with the bot, its tools named,
// given a risk and checked against their pins, and those held back switched off (not offered, calls refused)
// until an admin trusts them. A server that cannot be reached at start leaves the bot running without its tools.
import { type Clock, systemClock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { Store } from '../../agent/store/store.js';
import { systemTimers, type Timers } from '../../agent/timers.js';
import type { Tool } from '../../agent/tool.js';
import { readableUtc } from '../../agent/utc-time.js';
import type { NetworkGuard } from '../network-guard.js';
import { McpConnection } from './mcp-connection.js';
import type { McpServerEndpoint } from './mcp-endpoint.js';
import { heldBackTools } from './mcp-held-back.js';
import { McpPinRepository } from './mcp-pin-repository.js';
import { definitionHash, type McpServerPins, pinStates } from './mcp-pins.js';
import { mcpToolRisk } from './mcp-risk.js';
import type { McpServerSettings, McpSettings } from './mcp-settings.js';
import { createMcpTool } from './mcp-tool.js';
import type { McpToolDefinition } from './mcp-tool-definition.js';
import { nameMcpTools } from './mcp-tool-names.js';

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

interface Server {
  name: string;
  settings: McpServerSettings;
  connection: McpConnection;
  /** Registered tools by their own name, with the hash of the definition the model is offered. */
  registered: Map<string, string>;
  /** Off tools by their own name, with the refusal; recomputed on every listing and pin refresh. */
  heldBack: Map<string, string>;
  pins: McpServerPins;
}

export interface McpServerStatus {
  server: string;
  /** "up", or "down since 2026-01-01 12:03 UTC (exit 1)". */
  state: string;
  up: boolean;
  /** Registry names of the tools held back, with why. */
  heldBack: Array<{ name: string; refusal: string }>;
}

export class McpToolSource {
  private readonly servers: Server[];
  private readonly repository: McpPinRepository;
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly offered: Tool[] = [];
  private refreshTimer: unknown;
  private closed = false;

  constructor(private readonly options: McpToolSourceOptions) {
    this.clock = options.clock ?? systemClock;
    this.timers = options.timers ?? systemTimers;
    this.repository = new McpPinRepository(options.store, this.clock);
    this.servers = options.endpoints.map((endpoint) => {
      const settings = options.settings.servers[endpoint.name];
      if (settings === undefined) throw new Error(`no settings for MCP server ${endpoint.name}`);
      const server: Server = {
        name: endpoint.name,
        settings,
        registered: new Map(),
        heldBack: new Map(),
        pins: new Map(),
        connection: new McpConnection({
          endpoint,
          ...(options.guard ? { guard: options.guard } : {}),
          ...(options.parentEnvironment ? { parentEnvironment: options.parentEnvironment } : {}),
          clock: this.clock,
          timers: this.timers,
          onToolsChanged: (tools) => this.listingChanged(server, tools),
          onStateChanged: (state) => {
            if (state.kind === 'down' && state.reason !== 'closed' && !this.closed) {
              options.logger.warn(
                { server: endpoint.name, reason: state.reason },
                'MCP server down; restarting it',
              );
            }
          },
        }),
      };
      return server;
    });
  }

  /** The tools of the servers that answered at start, held-back ones included (they are switched off). */
  tools(): Tool[] {
    return [...this.offered];
  }

  /**
   * Starts every server at once and waits for each one's first try; then records first sights, names the tools
   * and registers them. Never throws for a server: one that is down is warned about and has no tools.
   */
  async start(): Promise<void> {
    const { logger } = this.options;
    await Promise.all(this.servers.map((server) => server.connection.connect()));
    const up: Server[] = [];
    for (const server of this.servers) {
      const state = server.connection.state();
      if (state.kind === 'down') {
        logger.warn(
          { server: server.name, reason: state.reason },
          `MCP server ${server.name} could not be reached (${state.reason}); the bot runs without its tools until it is restarted`,
        );
        continue;
      }
      for (const rejected of server.connection.rejectedTools()) {
        logger.warn(
          { server: server.name, tool: rejected.name, problem: rejected.problem },
          'MCP tool left out',
        );
      }
      try {
        await this.readPins(server, { firstSight: true });
        up.push(server);
      } catch (error) {
        logger.warn(
          { server: server.name, err: errorMessage(error) },
          'MCP server left out: its pins cannot be read',
        );
      }
    }
    const naming = nameMcpTools(
      up.map((server) => ({
        server: server.name,
        tools: server.connection.tools().map((tool) => tool.name),
        include: server.settings.tools.include,
        exclude: server.settings.tools.exclude,
      })),
      this.options.takenNames,
    );
    for (const refused of naming.refused) logger.warn({ tool: refused.name }, refused.message);
    for (const named of naming.named) {
      const server = up.find((candidate) => candidate.name === named.server)!;
      const definition = server.connection.tools().find((tool) => tool.name === named.tool)!;
      const { risk } = mcpToolRisk(named.tool, server.settings.tools.risk, definition.annotations);
      const made = createMcpTool({
        server: server.name,
        name: named.name,
        definition,
        risk,
        timeoutMs: server.settings.timeout,
        connection: server.connection,
        availability: () => {
          const refusal = server.heldBack.get(named.tool);
          return refusal === undefined ? undefined : { off: refusal };
        },
      });
      if (made.inputProblem !== undefined) {
        logger.warn(
          { tool: named.name, problem: made.inputProblem },
          `${named.name}: its input schema cannot be converted; its arguments go to the server unchecked`,
        );
      }
      server.registered.set(named.tool, definitionHash(definition));
      this.offered.push(made.tool);
    }
    for (const server of up) this.recheck(server);
    const heldBack = this.status().flatMap((status) => status.heldBack);
    if (heldBack.length > 0) {
      logger.warn(
        { tools: heldBack.map((tool) => tool.name) },
        `MCP tools held back until an admin trusts them: ${heldBack.map((tool) => tool.refusal).join('; ')}`,
      );
    }
    logger.info({ tools: this.offered.map((tool) => tool.name) }, 'MCP tools ready');
    this.scheduleRefresh();
  }

  /** Reads every server's pins again and switches its tools on or off accordingly. */
  async refreshPins(): Promise<void> {
    await Promise.all(
      this.servers.filter((server) => server.registered.size > 0).map((server) => this.refresh(server)),
    );
  }

  /** The server's tools as it listed them last (what `trust` accepts); empty for a server not configured. */
  listedTools(server: string): readonly McpToolDefinition[] {
    return this.servers.find((candidate) => candidate.name === server)?.connection.tools() ?? [];
  }

  /** Each server's state and held-back tools, for /readyz and the start-up log. */
  status(): McpServerStatus[] {
    return this.servers.map((server) => {
      const state = server.connection.state();
      return {
        server: server.name,
        up: state.kind === 'up',
        state: state.kind === 'up' ? 'up' : `down since ${readableUtc(state.since)} (${state.reason})`,
        heldBack: [...server.heldBack].map(([tool, refusal]) => ({
          name: `${server.name}__${tool}`,
          refusal,
        })),
      };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.refreshTimer !== undefined) this.timers.clearTimeout(this.refreshTimer);
    await Promise.all(this.servers.map((server) => server.connection.close()));
  }

  /**
   * The server's pins from the Store, with what is due recorded first: at start every tool of a server never
   * seen, and a new tool under `trust_new_tools`. A pin changed or missing is never recorded here.
   */
  private async readPins(server: Server, options: { firstSight: boolean }): Promise<void> {
    const stored = await this.repository.find(server.name);
    if (stored.size > 0 || options.firstSight) {
      const check = pinStates(server.name, server.connection.tools(), stored, {
        trustNewTools: server.settings.trust_new_tools,
        now: this.clock.now(),
      });
      if (check.toRecord.size > 0) {
        await this.repository.record(server.name, check.toRecord);
        server.pins = await this.repository.find(server.name);
        return;
      }
    }
    server.pins = stored;
  }

  private async refresh(server: Server): Promise<void> {
    try {
      await this.readPins(server, { firstSight: false });
      this.recheck(server);
    } catch (error) {
      // Unreadable pins trust nothing: every tool of the server is off until they read again.
      const why = `the pins of MCP server ${server.name} cannot be read (${errorMessage(error)})`;
      server.heldBack = new Map([...server.registered.keys()].map((tool) => [tool, why]));
    }
  }

  private recheck(server: Server): void {
    const before = new Set(server.heldBack.keys());
    server.heldBack = heldBackTools(server.name, server.registered, server.connection.tools(), server.pins);
    const switchedOff = [...server.heldBack.keys()].filter((tool) => !before.has(tool));
    const switchedOn = [...before].filter((tool) => !server.heldBack.has(tool));
    if (this.offered.length === 0) return;
    for (const tool of switchedOff)
      this.options.logger.warn({ server: server.name, tool }, server.heldBack.get(tool)!);
    if (switchedOn.length > 0) {
      this.options.logger.info(
        { server: server.name, tools: switchedOn },
        'MCP tools trusted and switched back on',
      );
    }
  }

  /** A new listing: a changed definition is off at once (by its registered hash), then the pins are read again. */
  private listingChanged(server: Server, _tools: readonly McpToolDefinition[]): void {
    if (server.registered.size === 0) return;
    this.recheck(server);
    void this.refresh(server);
  }

  private scheduleRefresh(): void {
    if (this.closed || !this.servers.some((server) => server.registered.size > 0)) return;
    this.refreshTimer = this.timers.setTimeout(() => {
      void this.refreshPins().finally(() => this.scheduleRefresh());
    }, this.options.pinRefreshMs ?? MCP_PIN_REFRESH_MS);
  }
}
