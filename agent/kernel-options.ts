// The kernel's dependencies and limits, with defaults, so the world (clock, store, model, chat) is injected.
import type { ChatPort } from './chat-port.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { ModelClient } from './model/model-client.js';
import type { ApprovalSettings } from './policy/approval-settings.js';
import type { Redactor } from './redaction.js';
import type { Store } from './store/store.js';
import type { Tool } from './tool.js';
import type { ToolPolicy } from './tool-policy.js';
import type { ToolRegistry } from './tool-registry.js';
import type { TraceSink } from './trace.js';

export interface KernelLimits {
  maxSteps: number;
  maxToolCalls: number;
  maxTokens: number;
  maxWallTimeMs: number;
  toolTimeoutMs: number;
  questionTtlMs: number;
  maxTaskChars: number;
  toolOutputChars: number;
}

export const DEFAULT_LIMITS = {
  maxSteps: 12,
  maxToolCalls: 40,
  maxTokens: 200_000,
  maxWallTimeMs: 10 * 60_000,
  toolTimeoutMs: 30_000,
  questionTtlMs: 24 * 3_600_000,
  maxTaskChars: 20_000,
  toolOutputChars: 16_000,
} as const satisfies KernelLimits;

export interface BreakerOptions {
  failureThreshold: number;
  openMs: number;
  maxOpenMs: number;
}

export const DEFAULT_TOOL_BREAKER = {
  failureThreshold: 3,
  openMs: 30_000,
  maxOpenMs: 10 * 60_000,
} as const satisfies BreakerOptions;

export interface KernelOptions {
  store: Store;
  tools: readonly Tool[];
  /** Absent: only the command engine runs, and free text gets help on configuring a model. */
  model?: ModelClient;
  /** Defaults to allowing every known tool; the bot passes the settings-based policy. */
  policy?: (registry: ToolRegistry) => ToolPolicy;
  chat?: ChatPort;
  trace?: TraceSink;
  redactor?: Redactor;
  clock?: Clock;
  logger?: Logger;
  limits?: Partial<KernelLimits>;
  contextWindow?: number;
  compressAt?: number;
  aliases?: Readonly<Record<string, string>>;
  botName?: string;
  toolBreaker?: Partial<BreakerOptions>;
  newId?: () => string;
  /** How long a process may hold a run before another may take it over after a crash. */
  runLeaseMs?: number;
  /** The approval book, audit log and permission settings; without them, calls needing approval are refused. */
  approvals?: ApprovalSettings;
}

/**
 * A lease is renewed between steps, so it must outlast the longest single step: a tool call may take its whole
 * time limit. Five minutes also covers a model call with its retries.
 */
export function defaultLeaseMs(tools: readonly Tool[], toolTimeoutMs: number): number {
  const longestTool = Math.max(toolTimeoutMs, ...tools.map((tool) => tool.timeoutMs ?? 0));
  return Math.max(5 * 60_000, 2 * longestTool);
}
