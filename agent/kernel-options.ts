// The kernel's dependencies and limits, with defaults, so the world (clock, store, model, chat) is injected.
import type { ApprovalSettings } from './approval-settings.js';
import { type CircuitBreakerOptions, CircuitBreakerOptionsSchema } from './breaker-state.js';
import type { ChatPort } from './chat-port.js';
import type { Clock } from './clock.js';
import { DEFAULT_LIMITS, type KernelLimits } from './kernel-limits.js';
import type { Logger } from './logger.js';
import type { ModelClient } from './model/model-client.js';
import type { Redactor } from './redaction.js';
import type { RunQueue } from './run-queue.js';
import type { Store } from './store/store.js';
import type { Timers } from './timers.js';
import type { Tool } from './tool.js';
import type { ToolPolicy } from './tool-policy.js';
import type { ToolRegistry } from './tool-registry.js';
import type { TraceSink } from './trace.js';

// The limits and their defaults come from one zod schema, which the bot's settings schema embeds.
export { DEFAULT_LIMITS, type KernelLimits } from './kernel-limits.js';

export type BreakerOptions = CircuitBreakerOptions;

export const DEFAULT_TOOL_BREAKER: Readonly<BreakerOptions> = Object.freeze(
  CircuitBreakerOptionsSchema.parse({}),
);

export interface KernelOptions {
  store: Store;
  /** The tools, or a registry of them the caller has built already (the bot checks its patrols against it). */
  tools: readonly Tool[] | ToolRegistry;
  /** Absent: only the command engine runs, and free text gets help on configuring a model. */
  model?: ModelClient;
  /** Writes the summaries (context compression, patrol results); the main model when absent. Unused without it. */
  summaryModel?: ModelClient;
  /** Defaults to allowing every known tool; the bot passes the settings-based policy, built over `tools`. */
  policy?: ToolPolicy | ((registry: ToolRegistry) => ToolPolicy);
  chat?: ChatPort;
  trace?: TraceSink;
  redactor?: Redactor;
  clock?: Clock;
  logger?: Logger;
  limits?: Partial<KernelLimits>;
  contextWindow?: number;
  compressAt?: number;
  /** Tool-result turns that keep their full outputs; older ones are cut to summaries (`model.keep_tool_outputs`). */
  keepToolOutputs?: number;
  /** The team's notes about its systems, added to the model's system prompt (settings `model.instructions`). */
  instructions?: string;
  aliases?: Readonly<Record<string, string>>;
  botName?: string;
  toolBreaker?: Partial<BreakerOptions>;
  newId?: () => string;
  /**
   * Who holds this process's run leases. A process restarted with its previous id (kept in the data directory)
   * takes over the leases of its previous life at once; random per process by default.
   */
  instanceId?: string;
  /** How long a process may hold a run before another may take it over after a crash. */
  runLeaseMs?: number;
  /** The audit log and permission settings; without them, calls needing approval are refused. */
  approvals?: ApprovalSettings;
  /** Where runs wait for a worker; in-process by default. */
  queue?: RunQueue;
  /** False for a process that only takes events (a gateway): it enqueues runs and steps none. */
  worker?: boolean;
  /**
   * Given to a gateway (`worker: false`): whether any process that steps runs was heard from lately. The gateway
   * then posts a new run's status itself as it queues it ("Working on it…", or that no worker is running).
   */
  workersSeen?: () => Promise<boolean>;
  /** How many runs this process steps at once. */
  concurrency?: number;
  /** For the lease heartbeat; Node's timers by default. */
  timers?: Timers;
  /**
   * How a command waits between tries for a run's lease another step holds (a person's answer, click or cancel);
   * real time by default. A test whose clock is frozen passes one that does not wait.
   */
  leaseRetrySleep?: (ms: number) => Promise<void>;
}

export function kernelLimits(limits: Partial<KernelLimits> = {}): KernelLimits {
  return { ...DEFAULT_LIMITS, ...limits };
}

export function toolBreakerOptions(options: Partial<BreakerOptions> = {}): BreakerOptions {
  return { ...DEFAULT_TOOL_BREAKER, ...options };
}

/**
 * How long a run's lease lasts if its holder dies. A worker renews it on a heartbeat (every third of it) while
 * it steps the run, whatever the step is doing, so the lease need not outlast the longest step: a crashed
 * worker's runs are taken over about this long after it died, plus one recovery sweep.
 */
export const DEFAULT_RUN_LEASE_MS = 20_000;
