// The kernel's tools and the executor that runs them: the registry (no tool may take a built-in's name) and the
// step executor with its per-tool circuit breakers, kept in the Store so every process sees the same.
import { BUILTIN_TOOLS } from './builtin-tools.js';
import { BreakerRegistry } from './circuit-breaker.js';
import type { Clock } from './clock.js';
import { CallerError, ErrorCode } from './errors.js';
import { type KernelLimits, type KernelOptions, toolBreakerOptions } from './kernel-options.js';
import type { Logger } from './logger.js';
import type { Redactor } from './redaction.js';
import { StepExecutor } from './step-executor.js';
import type { ToolPolicy } from './tool-policy.js';
import { ToolRegistry } from './tool-registry.js';

export function toolRegistryFor(tools: KernelOptions['tools']): ToolRegistry {
  const registry = tools instanceof ToolRegistry ? tools : new ToolRegistry(tools);
  const reserved = registry.all().find((tool) => BUILTIN_TOOLS.some((builtin) => builtin.name === tool.name));
  if (reserved) {
    throw new CallerError(
      ErrorCode.InvalidTool,
      `The tool name "${reserved.name}" is reserved for the kernel's built-in tool`,
    );
  }
  return registry;
}

export function stepExecutorFor(
  options: Pick<KernelOptions, 'store' | 'toolBreaker' | 'aliases'>,
  deps: {
    registry: ToolRegistry;
    policy: ToolPolicy;
    redactor: Redactor;
    clock: Clock;
    logger: Logger;
    limits: KernelLimits;
  },
): StepExecutor {
  const { registry, policy, redactor, clock, logger, limits } = deps;
  return new StepExecutor({
    registry,
    policy,
    breakers: new BreakerRegistry({
      prefix: 'tool',
      options: toolBreakerOptions(options.toolBreaker),
      store: options.store,
      clock,
      logger,
    }),
    redactor,
    clock,
    logger,
    aliases: options.aliases ?? {},
    toolTimeoutMs: limits.toolTimeoutMs,
    toolOutputChars: limits.toolOutputChars,
    toolBudgets: limits.toolBudgets,
  });
}
