// The plan a model writes, checked with zod and against the tools it was offered: every step a known tool with
// arguments its schema takes, every dependency a step of the plan, and no cycle. A valid plan comes back in an
// order where each step follows the steps it depends on.
import { z } from 'zod';
import { checkArguments, issuesText } from '../call-arguments.js';
import { isJsonObject } from '../model/json-text.js';
import type { PlanStep } from '../step-plan.js';
import type { Tool } from '../tool.js';
import type { ToolRegistry } from '../tool-registry.js';

/** The most steps one plan may have: a plan is a short investigation, not a batch job. */
export const MAX_PLAN_STEPS = 20;

const StepIdSchema = z.union([z.string().trim().min(1).max(40), z.number().int()]).transform(String);

const PlanStepInputSchema = z.object({
  id: StepIdSchema,
  tool: z.string().trim().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  depends_on: z.array(StepIdSchema).default([]),
  why: z.string().trim().max(500).optional(),
});

export const PlanInputSchema = z.object({
  steps: z
    .array(PlanStepInputSchema)
    .min(1, 'a plan needs at least one step (to answer without tools, reply in plain text)')
    .max(MAX_PLAN_STEPS, `a plan has at most ${MAX_PLAN_STEPS} steps`),
});
export type PlanInput = z.infer<typeof PlanInputSchema>;

/** The other names small models give the same keys; the plan they mean is read as if written as asked. */
const KEY_ALIASES: Record<string, string> = {
  arguments: 'args',
  parameters: 'args',
  dependsOn: 'depends_on',
  depends: 'depends_on',
  after: 'depends_on',
  name: 'tool',
  reason: 'why',
};

export type PlanCheck = { ok: true; steps: PlanStep[] } | { ok: false; problems: string[] };

export interface PlanCheckContext {
  /** The tools this run was offered, by name. */
  tools: ReadonlyMap<string, Tool>;
  registry: Pick<ToolRegistry, 'spec'>;
  /** The round the plan is for: its steps' call ids and their round say it. */
  round: number;
  /** The first step's number in the call ids: after the steps of earlier rounds. */
  firstIndex: number;
}

/** A plan as the model wrote it (already parsed JSON), checked; the problems are worded for the model to fix. */
export function checkPlan(raw: unknown, context: PlanCheckContext): PlanCheck {
  const parsed = PlanInputSchema.safeParse(normalized(raw));
  if (!parsed.success)
    return {
      ok: false,
      problems: [`the plan is not in the asked shape: ${issuesText(parsed.error.issues)}`],
    };
  const { steps } = parsed.data;
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const step of steps) {
    if (ids.has(step.id)) problems.push(`two steps have the id "${step.id}"; give each step its own id`);
    ids.add(step.id);
  }
  const offered = [...context.tools.keys()].join(', ');
  for (const step of steps) {
    const tool = context.tools.get(step.tool);
    if (!tool) {
      problems.push(`step ${step.id} calls ${step.tool}, which is not one of the tools offered: ${offered}`);
      continue;
    }
    const checked = checkArguments(tool, step.args, context.registry);
    if (checked.kind === 'invalid') problems.push(`step ${step.id}: ${checked.message}`);
    if (checked.kind === 'missing')
      problems.push(
        `step ${step.id}: ${step.tool} needs ${checked.fields.join(', ')}, which the step does not give`,
      );
    for (const dependency of step.depends_on) {
      if (!ids.has(dependency))
        problems.push(`step ${step.id} depends on ${dependency}, which is not a step of this plan`);
      if (dependency === step.id) problems.push(`step ${step.id} depends on itself`);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const ordered = dependencyOrder(steps);
  if (!ordered.ok) return ordered;
  return {
    ok: true,
    steps: ordered.steps.map((step, index) => ({
      id: step.id,
      round: context.round,
      callId: `plan${context.round}_${context.firstIndex + index}`,
      tool: step.tool,
      args: step.args,
      dependsOn: [...new Set(step.depends_on)],
      ...(step.why ? { why: step.why } : {}),
    })),
  };
}

type InputStep = PlanInput['steps'][number];

/**
 * The steps with each after those it depends on, keeping the model's order where it is free (Kahn's algorithm,
 * taking the earliest ready step each time); the steps left over depend on each other in a cycle.
 */
function dependencyOrder(
  steps: InputStep[],
): { ok: true; steps: InputStep[] } | { ok: false; problems: string[] } {
  const done = new Set<string>();
  const left = [...steps];
  const ordered: InputStep[] = [];
  while (left.length > 0) {
    const index = left.findIndex((step) => step.depends_on.every((id) => done.has(id)));
    if (index === -1) {
      const cycle = left.map((step) => step.id).join(', ');
      return {
        ok: false,
        problems: [`steps ${cycle} depend on each other in a cycle, so none of them could start`],
      };
    }
    const [step] = left.splice(index, 1);
    ordered.push(step!);
    done.add(step!.id);
  }
  return { ok: true, steps: ordered };
}

/** A bare list of steps, `{"plan": [...]}`, and the aliased keys, read as the shape asked for. */
function normalized(raw: unknown): unknown {
  const top = Array.isArray(raw) ? { steps: raw } : raw;
  if (!isJsonObject(top)) return top;
  const steps = top.steps ?? top.plan;
  if (!Array.isArray(steps)) return top;
  return {
    steps: steps.map((step) => {
      if (!isJsonObject(step)) return step;
      const renamed: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(step)) {
        const name = Object.hasOwn(KEY_ALIASES, key) ? KEY_ALIASES[key]! : key;
        if (!Object.hasOwn(renamed, name)) renamed[name] = value;
      }
      return renamed;
    }),
  };
}
