// Builds the engines a kernel offers: the command and checks engines always, react and plan when a model is
// configured.
import type { Clock } from '../clock.js';
import { DEFAULT_CONTEXT } from '../context/context-settings.js';
import type { KernelOptions } from '../kernel-options.js';
import type { Redactor } from '../redaction.js';
import type { EngineKind } from '../run.js';
import type { ToolPolicy } from '../tool-policy.js';
import type { ToolRegistry } from '../tool-registry.js';
import { visibleToolsFor } from '../visible-tools.js';
import { ChecksEngine } from './checks-engine.js';
import { CommandEngine } from './command-engine.js';
import type { Engine } from './engine.js';
import { PlanEngine } from './plan-engine.js';
import { ReactEngine } from './react-engine.js';

export interface EngineDeps
  extends Pick<
    KernelOptions,
    | 'model'
    | 'summaryModel'
    | 'aliases'
    | 'botName'
    | 'contextWindow'
    | 'compressAt'
    | 'keepToolOutputs'
    | 'instructions'
  > {
  registry: ToolRegistry;
  policy: ToolPolicy;
  redactor: Redactor;
  clock: Clock;
}

export function createEngines(deps: EngineDeps): Partial<Record<EngineKind, Engine>> {
  const { registry, policy, clock } = deps;
  const engines: Partial<Record<EngineKind, Engine>> = {
    command: new CommandEngine({
      registry,
      aliases: deps.aliases ?? {},
      availableCommands: (run) => visibleToolsFor(run, policy, registry).map((tool) => tool.name),
      modelConfigured: deps.model !== undefined,
    }),
    checks: new ChecksEngine({
      redactor: deps.redactor,
      clock,
      ...(deps.model ? { model: deps.summaryModel ?? deps.model } : {}),
    }),
  };
  if (deps.model) {
    engines.react = new ReactEngine({
      model: deps.model,
      ...(deps.summaryModel ? { summaryModel: deps.summaryModel } : {}),
      registry,
      policy,
      redactor: deps.redactor,
      clock,
      botName: deps.botName ?? 'opsbot',
      instructions: deps.instructions ?? '',
      contextWindow: deps.contextWindow ?? DEFAULT_CONTEXT.context_window,
      compressAt: deps.compressAt ?? DEFAULT_CONTEXT.compress_at,
      keepToolOutputs: deps.keepToolOutputs ?? DEFAULT_CONTEXT.keep_tool_outputs,
      onCompressed: (run, beforeTokens, afterTokens) => {
        run.events.push({
          type: 'context_compressed',
          at: clock.now(),
          step: run.step,
          beforeTokens,
          afterTokens,
        });
      },
      onToolOutputsCut: (run, count, keptTurns) => {
        run.events.push({ type: 'tool_outputs_cut', at: clock.now(), step: run.step, count, keptTurns });
      },
    });
    engines.plan = new PlanEngine({
      model: deps.model,
      registry,
      policy,
      redactor: deps.redactor,
      clock,
      botName: deps.botName ?? 'opsbot',
      instructions: deps.instructions ?? '',
    });
  }
  return engines;
}
