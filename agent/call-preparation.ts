// Everything about a call that can be decided without running it, in the order that spends the least: the
// built-ins, the policy's decision, the tool's availability and arguments, the guards (hidden arguments, repeats,
// budgets), and last whether an approver or the requester's own Confirm must be asked before it runs.
import { ASK_USER, AskUserInput, FINISH, FinishInput } from './builtin-tools.js';
import { checkArguments, issuesText } from './call-arguments.js';
import { type CallOutcome, refusalOutcome } from './call-outcome.js';
import { callSignature } from './call-signature.js';
import type { Clock } from './clock.js';
import type { ApproverSet } from './policy/approver-set.js';
import { hiddenArgumentRefusal } from './policy/secret-arguments.js';
import { confirmNeedFor } from './policy/unrequested-call.js';
import type { Redactor } from './redaction.js';
import { repeatedFailureMessage, repeatedResult } from './repeated-call.js';
import type { PlannedCall, Run } from './run.js';
import { type Tool, toolOffReason } from './tool.js';
import { budgetSpentMessage, callsLeft, type ToolBudgets } from './tool-budgets.js';
import type { ToolErrorClass } from './tool-errors.js';
import type { ToolPolicy } from './tool-policy.js';
import type { ToolRegistry } from './tool-registry.js';
import { visibleToolsFor } from './visible-tools.js';

export type CallPreparation =
  | { kind: 'finish'; answer: string }
  | { kind: 'ask'; question: string; choices: string[] }
  | { kind: 'missing'; question: string; choices: string[]; fields: string[] }
  /** `args` as parsed (defaults filled in) when the call was checked that far: the record shows them, as it does a call that ran. */
  | { kind: 'resolved'; outcome: CallOutcome; args?: Record<string, unknown> }
  | {
      kind: 'approval';
      tool: Tool;
      args: Record<string, unknown>;
      signature: string;
      approvers: ApproverSet;
      ttlMs: number;
      approvals: 1 | 2;
      twoPersonRoles: readonly string[];
      /** A Confirm: only the requester may decide it, and it offers no grants. */
      confirm?: true;
    }
  | { kind: 'ready'; tool: Tool; args: Record<string, unknown>; signature: string };

export interface CallPreparationDeps {
  registry: ToolRegistry;
  policy: ToolPolicy;
  redactor: Redactor;
  clock: Clock;
  toolBudgets: ToolBudgets;
  /** The command engine's aliases: a task naming one of them asks for its tool. */
  aliases?: Readonly<Record<string, string>>;
}

export function prepareCall(deps: CallPreparationDeps, run: Run, call: PlannedCall): CallPreparation {
  const { registry, policy, redactor } = deps;
  if (call.args === null) {
    return failed(deps, call, 'invalid_argument', call.parseError ?? 'The arguments are not a JSON object.');
  }
  if (call.name === FINISH) {
    const parsed = FinishInput.safeParse(call.args);
    if (!parsed.success) return failed(deps, call, 'invalid_argument', issuesText(parsed.error.issues));
    return { kind: 'finish', answer: parsed.data.answer };
  }
  if (call.name === ASK_USER) {
    const parsed = AskUserInput.safeParse(call.args);
    if (!parsed.success) return failed(deps, call, 'invalid_argument', issuesText(parsed.error.issues));
    return { kind: 'ask', question: parsed.data.question, choices: parsed.data.choices ?? [] };
  }

  // A tool its server has not brought yet (an MCP server down since start) fails transient, not as unknown.
  const awaited = registry.awaitedReason(call.name);
  if (awaited !== undefined) return failed(deps, call, 'transient', awaited);
  const decision = policy.decide(run.principal, run.conversation, call.name);
  if (decision.outcome === 'deny') {
    const errorClass = decision.code === 'unknown_tool' ? 'refused_by_policy' : 'permission_denied';
    const message =
      decision.code === 'unknown_tool'
        ? `${decision.reason} Available tools: ${visibleNames(deps, run).join(', ') || 'none'}.`
        : decision.reason;
    return failed(deps, call, errorClass, message);
  }
  const tool = registry.get(call.name);
  if (!tool) return failed(deps, call, 'refused_by_policy', `There is no tool named "${call.name}".`);
  // Before the arguments: what is off may be its input schema, and a switched-off tool is asked nothing.
  const off = toolOffReason(tool);
  if (off !== undefined) return failed(deps, call, 'refused_by_policy', off);

  const checked = checkArguments(tool, call.args, registry);
  if (checked.kind === 'missing') return checked;
  if (checked.kind === 'invalid') return failed(deps, call, 'invalid_argument', checked.message);
  const { args } = checked;
  // Before anything is asked or run: an approver must be able to read every argument of an action.
  const hidden = hiddenArgumentRefusal(tool, args, redactor);
  if (hidden) {
    // Refused like a rule's refusal, not like a model's slip: the thread shows it and the run ends with a problem.
    return {
      kind: 'resolved',
      outcome: refusalOutcome(redactor, tool.name, 'permission_denied', hidden),
      args,
    };
  }

  // Worked out once here: the batch and the record reuse it rather than serializing the arguments again.
  const signature = callSignature(tool.name, args);
  const earlier = run.completedCalls[signature];
  if (earlier?.failed) {
    const failure = refusalOutcome(
      redactor,
      tool.name,
      'transient',
      repeatedFailureMessage(tool.name, earlier),
    );
    return { kind: 'resolved', outcome: { ...failure, repeated: true }, args };
  }
  if (earlier) return { kind: 'resolved', args, outcome: repeatedResult(earlier, deps.clock.now()) };
  // After the repeats, which run nothing and so spend nothing; before an approval, so nobody is asked in vain.
  const budget = callsLeft(run, deps.toolBudgets, tool.name);
  if (budget && budget.left === 0) {
    const refusal = refusalOutcome(
      redactor,
      tool.name,
      'refused_by_policy',
      budgetSpentMessage(budget.budget),
    );
    return { kind: 'resolved', outcome: { ...refusal, budgetSpent: budget.budget }, args };
  }
  if (decision.outcome === 'needs_approval') {
    return {
      kind: 'approval',
      tool,
      args,
      signature,
      approvers: decision.approvers,
      ttlMs: decision.ttlMs,
      approvals: decision.approvals,
      twoPersonRoles: decision.twoPersonRoles,
    };
  }
  // A write the person did not ask for, about to run without an approver, waits for their own Confirm.
  const confirm = confirmNeedFor(policy.confirmUnrequested, run, tool, deps.aliases ?? {});
  if (confirm?.kind === 'refused') {
    return {
      kind: 'resolved',
      outcome: refusalOutcome(redactor, tool.name, 'permission_denied', confirm.reason),
      args,
    };
  }
  if (confirm) {
    const { kind: _confirm, ...need } = confirm;
    return { kind: 'approval', tool, args, signature, ...need };
  }
  return { kind: 'ready', tool, args, signature };
}

/** A call refused before its tool was found or its arguments parsed: the record shows the arguments as given. */
function failed(
  deps: Pick<CallPreparationDeps, 'redactor'>,
  call: PlannedCall,
  errorClass: ToolErrorClass,
  message: string,
): CallPreparation {
  return { kind: 'resolved', outcome: refusalOutcome(deps.redactor, call.name, errorClass, message) };
}

function visibleNames(deps: Pick<CallPreparationDeps, 'policy' | 'registry'>, run: Run): string[] {
  return visibleToolsFor(run, deps.policy, deps.registry).map((tool) => tool.name);
}
