// The plan engine: one model call makes a plan of tool calls, the kernel runs it level by level (through the same
// gate and approvals as every call), and one more call answers from the results. A failed step may earn one new
// plan. The plan lives in the run, so a restart goes on where the plan stands without asking the model again.
import type { Clock } from '../clock.js';
import { ErrorCode, SystemError } from '../errors.js';
import type { ModelClient } from '../model/model-client.js';
import { withoutThinking } from '../model/reasoning-text.js';
import type { ModelMessage } from '../model-message.js';
import { type PlanStepProgress, planProgress } from '../plan-progress.js';
import { renderPrompt } from '../prompts.js';
import type { Redactor } from '../redaction.js';
import type { PlannedCall, Run } from '../run.js';
import type { WrapUp } from '../run-progress.js';
import { PLAN_ROUNDS, type PlanStep, type StepPlan } from '../step-plan.js';
import type { ToolPolicy } from '../tool-policy.js';
import type { ToolRegistry } from '../tool-registry.js';
import { visibleToolsFor } from '../visible-tools.js';
import type { Engine, PlanOptions, PlanOutcome, PlanProgress } from './engine.js';
import { type ModelCallProgress, modelCallProgress } from './model-call-progress.js';
import { answerPrompt, planPrompt, resultsMessage, stepLines } from './plan-prompts.js';
import { readPlanReply } from './plan-reply.js';
import { checkPlan } from './plan-schema.js';
import { countModelCall, wrapUpPrompt } from './wrap-up-prompt.js';

export interface PlanEngineOptions {
  model: ModelClient;
  registry: ToolRegistry;
  policy: ToolPolicy;
  redactor: Redactor;
  clock: Clock;
  botName: string;
  /** The team's notes about its systems; empty for none. */
  instructions: string;
}

/** The problems a failed run names; the model was told all of them. */
const SHOWN_PROBLEMS = 5;

function clipped(text: string, chars: number): string {
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}

/** A plan the model could not get right: the run fails with the problems, for the person to rephrase. */
export class PlanInvalidError extends SystemError {
  constructor(problems: readonly string[]) {
    const listed = problems.slice(0, SHOWN_PROBLEMS).join('; ');
    const more = problems.length > SHOWN_PROBLEMS ? ` (and ${problems.length - SHOWN_PROBLEMS} more)` : '';
    super(
      ErrorCode.PlanInvalid,
      `The model's plan was invalid twice: ${clipped(listed, 1_200)}${more}. Rephrase the task, or name the checks you want.`,
    );
  }
}

type NewPlan = Omit<StepPlan, 'messageId'>;

/** What a planning exchange came to: a valid plan, or the model's plain-text answer. */
type Planned = { kind: 'plan'; steps: PlanStep[] } | { kind: 'answer'; answer: string };

export class PlanEngine implements Engine {
  readonly kind = 'plan' as const;

  constructor(private readonly options: PlanEngineOptions) {}

  async plan(
    run: Run,
    signal: AbortSignal,
    progress?: PlanProgress,
    options: PlanOptions = {},
  ): Promise<PlanOutcome> {
    const heard = modelCallProgress(progress);
    const plan = run.stepPlan;
    const facts = planProgress(run);
    // A last step (the step limit, or the requester said stop) answers from what the plan found so far.
    if (options.wrapUp) return this.answer(run, facts, signal, heard, options.wrapUp);
    if (!plan) return this.firstPlan(run, signal, heard);
    const current = facts.filter((fact) => fact.step.round === plan.round);
    const failed = current.filter((fact) => fact.state === 'failed');
    if (failed.length > 0 && plan.round < PLAN_ROUNDS)
      return this.replan(run, plan, facts, failed, signal, heard);
    const ready = current.filter((fact) => fact.state === 'running').map((fact) => fact.step);
    if (ready.length > 0) return this.level(run, ready);
    return this.answer(run, facts, signal, heard);
  }

  private async firstPlan(run: Run, signal: AbortSignal, heard: ModelCallProgress): Promise<PlanOutcome> {
    const planned = await this.planned(run, 1, 1, [], signal, heard);
    if (planned.kind === 'answer') return { kind: 'answer', answer: planned.answer };
    return this.level(run, firstLevel(planned.steps), { round: 1, steps: planned.steps });
  }

  /** One new plan after a failure: the failures shown, the steps not yet run replaced. */
  private async replan(
    run: Run,
    plan: StepPlan,
    facts: PlanStepProgress[],
    failed: PlanStepProgress[],
    signal: AbortSignal,
    heard: ModelCallProgress,
  ): Promise<PlanOutcome> {
    const said = failed.map((fact) => `Step ${fact.number} (${fact.step.tool}) failed.`).join(' ');
    const ask = renderPrompt('planReplan', { results: stepLines(facts), failed: said });
    const round = plan.round + 1;
    const planned = await this.planned(run, round, plan.steps.length + 1, [ask], signal, heard);
    if (planned.kind === 'answer') return { kind: 'answer', answer: planned.answer };
    return this.level(run, firstLevel(planned.steps), { round, steps: [...plan.steps, ...planned.steps] });
  }

  /**
   * Asks for a plan, and once more with the problems when it is invalid; a second invalid plan fails the run. A
   * reply with no plan in it is the answer.
   */
  private async planned(
    run: Run,
    round: number,
    firstIndex: number,
    asks: string[],
    signal: AbortSignal,
    heard: ModelCallProgress,
  ): Promise<Planned> {
    const tools = visibleToolsFor(run, this.options.policy, this.options.registry);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const system = planPrompt(run, this.options, tools, (name) => this.options.registry.spec(name));
    for (const ask of asks) run.messages.push({ role: 'user', content: ask });
    let problems: string[] = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      if (attempt === 2)
        run.messages.push({
          role: 'user',
          content: renderPrompt('planFix', { problems: problems.join('; ') }),
        });
      const text = await this.ask(run, [{ role: 'system', content: system }, ...run.messages], signal, heard);
      const reply = readPlanReply(text ?? '');
      if (reply.kind === 'answer')
        return { kind: 'answer', answer: reply.text || 'The model ended without an answer.' };
      if (reply.kind === 'unreadable') {
        problems = [reply.reason];
        continue;
      }
      const checked = checkPlan(reply.raw, {
        tools: byName,
        registry: this.options.registry,
        round,
        firstIndex,
      });
      if (checked.ok) return { kind: 'plan', steps: checked.steps };
      problems = checked.problems.map((problem) => this.options.redactor.redact(problem));
    }
    throw new PlanInvalidError(problems);
  }

  /** The next level's calls: its reads first (they run together), then its write and danger calls, in order. */
  private level(run: Run, steps: PlanStep[], plan?: NewPlan): PlanOutcome {
    const isRead = (step: PlanStep) => this.options.registry.get(step.tool)?.risk === 'read';
    const ordered = [...steps.filter(isRead), ...steps.filter((step) => !isRead(step))];
    const calls: PlannedCall[] = ordered.map((step) => ({
      id: step.callId,
      name: step.tool,
      rawArguments: JSON.stringify(step.args),
      args: step.args,
      ...(step.why ? { reason: this.options.redactor.redact(step.why) } : {}),
    }));
    // The transcript keeps the level as real calls, so that the tool results after them are a valid exchange.
    run.messages.push({
      role: 'assistant',
      content: null,
      toolCalls: calls.map((call) => ({
        id: call.id,
        name: call.name,
        arguments: this.options.redactor.redact(call.rawArguments),
      })),
    });
    return { kind: 'calls', calls, ...(plan ? { stepPlan: plan } : {}) };
  }

  /** The answer from the steps' results, offered no tools. */
  private async answer(
    run: Run,
    facts: PlanStepProgress[],
    signal: AbortSignal,
    heard: ModelCallProgress,
    wrapUp?: WrapUp,
  ): Promise<PlanOutcome> {
    const messages: ModelMessage[] = [
      { role: 'system', content: answerPrompt(run, this.options) },
      ...run.messages,
      ...(facts.length > 0 ? [{ role: 'user' as const, content: resultsMessage(facts) }] : []),
      ...(wrapUp ? [{ role: 'user' as const, content: wrapUpPrompt(wrapUp) }] : []),
    ];
    const text = await this.ask(run, messages, signal, heard);
    const answer = text?.trim();
    return { kind: 'answer', answer: answer || 'The model ended without an answer.' };
  }

  /**
   * One model call without tools, counted in the run's usage and events; its reply (without any reasoning) is
   * kept in the transcript, redacted. Returns the reply as written, which a plan's arguments are read from.
   */
  private async ask(
    run: Run,
    messages: ModelMessage[],
    signal: AbortSignal,
    heard: ModelCallProgress,
  ): Promise<string | null> {
    const { model, clock, redactor } = this.options;
    const started = clock.now();
    const reply = await model.complete({ messages, tools: [], purpose: 'tool_loop', signal, ...heard });
    countModelCall(run, reply.usage);
    const text = withoutThinking(reply.content).text;
    const content = text === null ? null : redactor.redact(text);
    run.messages.push({ role: 'assistant', content, toolCalls: [] });
    run.events.push({
      type: 'model_turn',
      at: clock.now(),
      step: run.step,
      content,
      toolCalls: [],
      promptTokens: reply.usage.promptTokens,
      completionTokens: reply.usage.completionTokens,
      durationMs: clock.now() - started,
    });
    return text;
  }
}

/** The steps of a new plan that wait for none: its first level. */
function firstLevel(steps: PlanStep[]): PlanStep[] {
  const round = steps.at(-1)!.round;
  return steps.filter((step) => step.round === round && step.dependsOn.length === 0);
}
