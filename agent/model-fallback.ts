// When the model cannot be reached, a typed command still runs, on the command engine, and says so; free text is
// told plainly that the model is down, since when and why, and which commands still work.
import type { Clock } from './clock.js';
import type { CommandEngine } from './engines/command-engine.js';
import { ErrorCode, OpsbotError } from './errors.js';
import type { ModelOutage } from './model/model-port.js';
import type { Run } from './run.js';
import { readableUtc } from './utc-time.js';

export interface ModelFallbackOptions {
  command: CommandEngine | undefined;
  /** The model client's outage, when it has one. */
  outage: () => ModelOutage | undefined;
  clock: Clock;
}

/** What to do with a model run whose model failed: run it as a typed command, or fail it in these words. */
export type FallbackDecision = { kind: 'switch'; reason: string } | { kind: 'fail'; message: string };

export class ModelFallback {
  constructor(private readonly options: ModelFallbackOptions) {}

  /**
   * `the model "llama3" at http://…/v1 is unreachable since 2026-01-01 12:03 UTC (could not connect)`, or
   * undefined while it answers.
   */
  unreachable(): string | undefined {
    const outage = this.options.outage();
    if (!outage) return undefined;
    return `the model ${outage.where} is unreachable since ${readableUtc(outage.since)} (${outage.reason})`;
  }

  /** A new request's engine: the command engine when the model is down and the text is a typed command. */
  engineAtStart(text: string): { reason: string } | undefined {
    const unreachable = this.unreachable();
    if (!unreachable || !this.options.command?.accepts(text)) return undefined;
    return { reason: unreachable };
  }

  /**
   * A model run whose model call failed for want of an answer: a typed command that has made no call yet runs on
   * the command engine; anything else fails, saying the model is down and which commands still work.
   */
  afterModelError(run: Run, error: unknown): FallbackDecision | undefined {
    if (!(error instanceof OpsbotError) || error.code !== ErrorCode.ModelUnavailable) return undefined;
    const { command } = this.options;
    if (!command) return undefined;
    const unreachable = this.unreachable();
    if (run.usage.toolCalls === 0 && command.accepts(run.task))
      return { kind: 'switch', reason: unreachable ?? 'the model is unreachable' };
    // The client's own words say when it will be tried again, once its breaker is open.
    const retry = / it will be tried again in [^;.]*(?:\([^)]*\))?/.exec(error.message)?.[0];
    const said = unreachable
      ? `${unreachable[0]!.toUpperCase()}${unreachable.slice(1)}.${retry ? `${retry.replace(' it', ' It')}.` : ''}`
      : error.message;
    return { kind: 'fail', message: `${said} ${command.commandsHint(run)}` };
  }
}
