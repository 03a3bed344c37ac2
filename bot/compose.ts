// Builds a running opsbot from settings and environment: store, tools, model, policy, trace and the kernel.
import { join } from 'node:path';
import { BUILTIN_TOOLS } from '../agent/builtin-tools.js';
import type { ChatPort } from '../agent/chat-port.js';
import { type Clock, systemClock } from '../agent/clock.js';
import { Kernel } from '../agent/kernel.js';
import { kernelLimitsFromSettings } from '../agent/kernel-limits.js';
import type { Logger } from '../agent/logger.js';
import type { ModelClient } from '../agent/model/model-client.js';
import type { CachedModelProbe } from '../agent/model/model-probe.js';
import type { ModelRateLimiter } from '../agent/model/model-rate-limit.js';
import { AuditLog } from '../agent/policy/audit-log.js';
import { settingsToolPolicy } from '../agent/policy/settings-tool-policy.js';
import { twoPersonWarnings } from '../agent/policy/two-person-check.js';
import type { Redactor } from '../agent/redaction.js';
import type { RunQueue } from '../agent/run-queue.js';
import { openStore, parseStoreUrl } from '../agent/store/open-store.js';
import type { Store } from '../agent/store/store.js';
import { StoreWriteHealth, watchWrites } from '../agent/store/store-write-health.js';
import { StoreTraceSink } from '../agent/store-trace-sink.js';
import { ToolRegistry } from '../agent/tool-registry.js';
import { everyTraceSink, FileTraceSink } from '../agent/trace.js';
import { selfPortWarnings } from '../scheduled/self-port-warnings.js';
import { createOpsTools } from '../tools/index.js';
import { type McpToolSource, startMcpTools } from '../tools/mcp/start-mcp-tools.js';
import { ToolSettingsError } from '../tools/tool-settings-error.js';
import { AlertGroupRepository } from './alerts/alert-group-repository.js';
import { AlertSilenceEnds } from './alerts/alert-silence-ends.js';
import { SilenceRunLinks } from './alerts/alert-silence-links.js';
import { type Environment, modelConfigured } from './config/environment.js';
import { settingsProblemsError } from './config/load-settings.js';
import type { Settings } from './config/settings-schema.js';
import { claimInstanceId } from './instance-id.js';
import { meteredStore } from './metrics/metered-store.js';
import { meteredTraceSink } from './metrics/metered-trace-sink.js';
import type { OpsbotMetrics } from './metrics/opsbot-metrics.js';
import { runLifecycleMetrics } from './metrics/run-lifecycle-metrics.js';
import { createModelClients } from './model-clients.js';
import { workersSeen } from './services/workers-service.js';
import { settingsRedactor } from './settings-redactor.js';
import { namesAnMcpServer, settingsToolProblems } from './settings-tool-checks.js';

export interface Opsbot {
  kernel: Kernel;
  audit: AuditLog;
  store: Store;
  /** Whether the store takes writes: every write through `store` is seen, for /readyz's store_writes check. */
  storeWrites: StoreWriteHealth;
  settings: Settings;
  environment: Environment;
  redactor: Redactor;
  model: ModelClient | undefined;
  /** Whether the configured model is really there (cached); undefined without a model. */
  modelHealth: CachedModelProbe | undefined;
  /** Whether the summary model is there, when it is not the main one. */
  summaryModelHealth: CachedModelProbe | undefined;
  /** This process's pace of model requests; undefined without a model. */
  modelRateLimiter: ModelRateLimiter | undefined;
  traceDir: string;
  /** This process's id (kept in the data directory): its run leases and its line in `opsbot cluster`. */
  instanceId: string;
  /** A few readable lines: what is running, with which store and model. */
  describe(): string[];
  /**
   * Settings that are valid but will not do what they seem to, found once the tools are built: a tool that needs
   * two approvers and has fewer than two. Said at start-up and by `opsbot config check`.
   */
  warnings: readonly string[];
  /** The MCP servers' connections and tools; undefined when `mcp.servers` names none. */
  mcp: McpToolSource | undefined;
  /** Stops the kernel and the MCP servers, then closes the storage: for the CLI, which has no services. */
  close(): Promise<void>;
  /** Gives up this process's instance id and closes the store; for `serve`, whose kernel service stops the kernel. */
  closeStorage(): Promise<void>;
}

export interface ComposeOptions {
  environment: Environment;
  settings: Settings;
  chat: ChatPort;
  logger: Logger;
  redactor?: Redactor;
  clock?: Clock;
  /** Reuse an open store (tests); otherwise OPSBOT_STORE_URL is opened. */
  store?: Store;
  /** Where runs wait for a worker (tests); otherwise see `shareQueue`. */
  queue?: RunQueue;
  /**
   * A server (`npm start`) on Redis shares one BullMQ queue with the other processes. The CLI and tests step
   * their own runs in-process, even on Redis, so that `opsbot run` never steps a chat user's run.
   */
  shareQueue?: boolean;
  /** OPSBOT_METRICS=on: the store, the model, the trace and run changes are counted here. */
  metrics?: OpsbotMetrics;
  /**
   * `skip`: the MCP servers are not started (`opsbot config check`, which connects to them itself and only looks:
   * starting them here would record first-sight pins). Their tools are then not in the registry, so the checks
   * of patrols and budgets leave out the tools named `<server>__…` of a configured server.
   */
  mcp?: 'start' | 'skip';
  /**
   * A CLI command beside a running server: the server holding the data directory's instance id is the normal
   * set-up, so the fresh id this process takes is not worth a warning (a second server sharing it is).
   */
  besideServer?: boolean;
}

export async function createOpsbot(options: ComposeOptions): Promise<Opsbot> {
  const { environment, settings, logger } = options;
  const redactor = options.redactor ?? settingsRedactor(settings);
  const tools = await createOpsTools(settings.tools, { logger }).catch((error: unknown) => {
    // Problems in the commands are reported like the loader's own: every one, with the file and line.
    throw error instanceof ToolSettingsError ? settingsProblemsError(settings, [...error.problems]) : error;
  });
  const permissions = { ...settings.permissions, alert_role: settings.alerts.role };
  const { metrics } = options;
  const opened =
    options.store ??
    (await openStore(environment.OPSBOT_STORE_URL, {
      logger,
      ...(options.clock ? { clock: options.clock } : {}),
    }));
  // MCP servers start before the registry is built: their tools (and their pins, in the store) are part of it.
  let mcp: McpToolSource | undefined;
  const closeOnFailure = async () => {
    await mcp?.close();
    if (!options.store) await opened.close();
  };
  let registry: ToolRegistry;
  let policy: ReturnType<typeof settingsToolPolicy>;
  try {
    mcp =
      options.mcp === 'skip'
        ? undefined
        : await startMcpTools(settings, {
            store: opened,
            logger,
            takenNames: tools.map((tool) => tool.name),
            ...(options.clock ? { clock: options.clock } : {}),
          });
    // Patrol checks and tool budgets are checked against the real tools (and a patrol's role) before anything
    // runs. Built once: the kernel gets these two.
    registry = new ToolRegistry(tools, mcp ? [mcp] : []);
    const known = registry;
    // A check or budget naming a tool of an MCP server that has not answered yet is checked when it runs, not
    // refused now; with the servers skipped (config check, which looks at them itself) every MCP name is so.
    const checkTools = {
      get: (name: string) => known.get(name),
      names: () => known.names(),
      awaited: (name: string) =>
        options.mcp === 'skip' ? namesAnMcpServer(name, settings) : (mcp?.awaits(name) ?? false),
    };
    // An alert investigation (alert:<receiver>) runs as alerts.role, which the policy reads with the permissions.
    policy = settingsToolPolicy(permissions, registry);
    const registryIssues = settingsToolProblems(settings, checkTools, policy, permissions);
    if (registryIssues.length > 0) throw settingsProblemsError(settings, registryIssues);
  } catch (error) {
    await closeOnFailure();
    throw error;
  }
  const warnings = [
    ...twoPersonWarnings(settings.permissions, registry.all()),
    ...selfPortWarnings(settings.patrols, { host: environment.HOST, port: environment.PORT }),
  ];
  const instance = claimInstanceId(environment.OPSBOT_DATA_DIR);
  if (instance.note) {
    if (options.besideServer) logger.debug({ instanceId: instance.id }, instance.note);
    else logger.warn({ instanceId: instance.id }, instance.note);
  }
  const storeWrites = new StoreWriteHealth(() => (options.clock ?? systemClock).now());
  const store = watchWrites(metrics ? meteredStore(opened, metrics) : opened, storeWrites);
  const limits = settings.limits;
  const queue =
    options.queue ??
    (options.shareQueue
      ? await runQueueFor(environment, options.store, logger, limits.worker_lock)
      : undefined);
  const models = modelConfigured(environment)
    ? createModelClients({
        environment,
        settings,
        store,
        logger,
        ...(options.clock ? { clock: options.clock } : {}),
        ...(metrics ? { metrics } : {}),
      })
    : undefined;
  const model = models?.main;
  const traceDir = join(environment.OPSBOT_DATA_DIR, 'traces');
  const clock = options.clock ? { clock: options.clock } : {};
  const audit = new AuditLog(store, clock);
  const approvals = {
    audit,
    permissions,
  };
  // In the store, for `opsbot trace` from any machine; and in the data folder, to follow on this one.
  const trace = everyTraceSink(
    new StoreTraceSink({
      store,
      keepMs: limits.trace_history,
      clock: options.clock ?? systemClock,
      logger,
      redactor,
    }),
    new FileTraceSink(traceDir, { redactor }),
  );
  const stepsRuns = environment.OPSBOT_ROLE !== 'gateway';
  const kernel = new Kernel({
    store,
    tools: registry,
    ...models?.forKernel,
    policy,
    approvals,
    chat: options.chat,
    trace: metrics
      ? meteredTraceSink(trace, {
          metrics,
          knownTool: (name) =>
            registry.get(name) !== undefined || BUILTIN_TOOLS.some((builtin) => builtin.name === name),
        })
      : trace,
    redactor,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    limits: kernelLimitsFromSettings(limits),
    contextWindow: settings.model.context_window,
    compressAt: settings.model.compress_at,
    keepToolOutputs: settings.model.keep_tool_outputs,
    instructions: settings.model.instructions,
    aliases: settings.aliases,
    botName: settings.bot_name,
    instanceId: instance.id,
    ...(queue ? { queue } : {}),
    // A gateway takes events and enqueues runs; the workers step them.
    worker: stepsRuns,
    ...(stepsRuns ? {} : { workersSeen: workersSeen(store, options.clock ?? systemClock) }),
    concurrency: limits.worker_concurrency,
    runLeaseMs: limits.worker_lock,
  });
  if (metrics) kernel.onRunChange(runLifecycleMetrics(metrics));
  // A Silence button's run ends where runs are stepped (a worker on Redis), which then shows it on the group's root.
  if (stepsRuns && settings.tools.alertmanager) {
    const ends = new AlertSilenceEnds({
      links: new SilenceRunLinks(store),
      repository: new AlertGroupRepository(store),
      chat: options.chat,
      clock: options.clock ?? systemClock,
      logger,
      modelConfigured: kernel.modelConfigured,
    });
    kernel.onRunChange(ends.listener);
  }
  /** The models and where they are reached, e.g. "gpt-4o-mini at https://api.openai.com/v1; summaries: …". */
  const describeModel = () =>
    models
      ? models.describe()
      : 'none configured (command engine only; set OPENAI_BASE_URL or OPENAI_API_KEY for free text)';
  const closeStorage = async () => {
    instance.release();
    await store.close();
  };
  return {
    kernel,
    instanceId: instance.id,
    audit,
    store,
    storeWrites,
    settings,
    environment,
    redactor,
    model,
    modelHealth: models?.health,
    summaryModelHealth: models?.summaryHealth,
    modelRateLimiter: models?.limiter,
    traceDir,
    warnings,
    describe() {
      return [
        `store: ${store.description}`,
        `model: ${describeModel()}`,
        `tools: ${kernel.registry.names().join(', ')}`,
      ];
    },
    mcp,
    async close() {
      await kernel.shutdown();
      await mcp?.close();
      await closeStorage();
    },
    closeStorage,
  };
}

/**
 * With Redis, runs wait in a BullMQ queue that every process shares; otherwise the kernel's in-process queue.
 * A store handed in by a caller (tests) keeps the in-process queue unless a queue is handed in too.
 */
async function runQueueFor(
  environment: Environment,
  given: Store | undefined,
  logger: Logger,
  lockMs: number,
): Promise<RunQueue | undefined> {
  if (given) return undefined;
  const location = parseStoreUrl(environment.OPSBOT_STORE_URL);
  if (location.backend !== 'redis') return undefined;
  // BullMQ is loaded only on Redis.
  const { BullmqRunQueue } = await import('../agent/queue/bullmq-run-queue.js');
  return new BullmqRunQueue({ url: location.url, logger, lockMs });
}
