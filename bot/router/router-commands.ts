// The router's own commands — help, status, cancel, whoami, permissions, grants, revoke — answered without a run.

import { countWords } from '../../agent/count-words.js';
import {
  describePermissions,
  formatPermissions,
  formatWhoami,
} from '../../agent/policy/describe-permissions.js';
import type { Run, RunEvent } from '../../agent/run.js';
import { finishedWords } from '../../agent/run-state-words.js';
import { toolUsage } from '../chat/tool-usage.js';
import { cancelWithoutId } from './cancel-without-id.js';
import type { CommandContext } from './command-context.js';
import { listGrantsReply, revokeGrantReply, revokeUsage } from './grant-replies.js';

export type RouterCommand =
  | { name: 'help' }
  | { name: 'whoami' }
  | { name: 'permissions' }
  | { name: 'status'; runId?: string }
  /** Without a run id: this thread's active run, or your only one (cancel-without-id.ts). */
  | { name: 'cancel'; runId?: string }
  | { name: 'grants' }
  | { name: 'revoke'; grantId: string }
  /** `revoke` alone, or with one word that is not a grant id: a usage hint, not a task. */
  | { name: 'revoke-usage'; given?: string }
  | { name: 'patrol'; args: string };

/**
 * Only exact command shapes count, so "status of the api" and "revoke the api access" stay tasks for the model.
 * `revoke` with at most one word is always the command: a lone word there is a mistyped grant id far more often
 * than a task, and a task from `/ops` would be echoed to the whole channel.
 */
export function parseRouterCommand(text: string): RouterCommand | undefined {
  const trimmed = text.trim();
  if (/^(help|\?)$/i.test(trimmed)) return { name: 'help' };
  if (/^whoami$/i.test(trimmed)) return { name: 'whoami' };
  if (/^permissions$/i.test(trimmed)) return { name: 'permissions' };
  const status = /^status(?:\s+(run_[\w-]+))?$/i.exec(trimmed);
  if (status) return status[1] ? { name: 'status', runId: status[1] } : { name: 'status' };
  const cancel = /^cancel(?:\s+(run_[\w-]+))?$/i.exec(trimmed);
  if (cancel) return cancel[1] ? { name: 'cancel', runId: cancel[1] } : { name: 'cancel' };
  if (/^grants$/i.test(trimmed)) return { name: 'grants' };
  const revoke = /^revoke(?:\s+(\S+))?$/i.exec(trimmed);
  if (revoke) {
    const given = revoke[1];
    if (given && /^grt_[0-9a-f]{16}$/i.test(given)) return { name: 'revoke', grantId: given.toLowerCase() };
    return given ? { name: 'revoke-usage', given } : { name: 'revoke-usage' };
  }
  const patrol = /^patrols?(?:\s+(.*))?$/i.exec(trimmed);
  if (patrol) return { name: 'patrol', args: patrol[1] ?? '' };
  return undefined;
}

export type { CommandContext } from './command-context.js';

export async function runRouterCommand(command: RouterCommand, context: CommandContext): Promise<string> {
  const { kernel, principal } = context;
  switch (command.name) {
    case 'help':
      return helpText(context);
    case 'whoami':
      return formatWhoami(principal, describe(context));
    case 'permissions':
      return formatPermissions(describe(context));
    case 'status':
      return command.runId ? runStatus(context, command.runId) : activeRuns(context);
    case 'cancel':
      return command.runId
        ? (await kernel.cancel(command.runId, principal)).message
        : cancelWithoutId(context);
    case 'grants':
      return listGrantsReply(context);
    case 'revoke':
      return revokeGrantReply(context, command.grantId);
    case 'revoke-usage':
      return revokeUsage(context, command.given);
    case 'patrol':
      return context.patrols
        ? context.patrols.command(command.args, principal)
        : 'Patrols are not running in this opsbot (none are configured under `patrols:` in the settings).';
  }
}

function describe(context: CommandContext) {
  const { settings, principal, kernel, conversation } = context;
  return describePermissions(settings.permissions, principal, kernel.registry.asRecord(), conversation);
}

function helpText(context: CommandContext): string {
  const command = context.slashCommand;
  const permissions = describe(context);
  const tools = (names: string[]) => toolLines(context, names);
  return [
    `*${context.settings.bot_name}* carries out ops tasks. Mention me with a task, or use \`${command} <task>\`.`,
    '',
    `• \`${command} <task>\` — start a task in a new thread`,
    ...(context.kernel.modelConfigured
      ? [
          `• \`${command} plan <task>\` — the same, planned first: the model plans its checks, they run (side by side where they can), and it answers from the results`,
        ]
      : []),
    `• \`${command} status [run]\` — active runs, or one run's state and last steps`,
    `• \`${command} cancel [run]\` — stop a run at its next step: in a thread, its run; alone, your only active run`,
    `• \`${command} whoami\` — your roles`,
    `• \`${command} permissions\` — what you can run and approve here`,
    `• \`${command} grants\` — approvals for a while in force: this channel's, then others you could end`,
    `• \`${command} revoke <grant>\` — end a grant early (admins and the tool's approvers)`,
    ...(context.patrols
      ? [`• \`${command} patrol list\` — scheduled patrols (also show, run, pause, resume, snooze, history)`]
      : []),
    '',
    `Tools you can use here:${tools(permissions.direct)}`,
    `Tools that need an approver:${tools(permissions.needsApproval)}`,
    ...(permissions.switchedOff.length > 0
      ? [
          `Switched off now:\n${permissions.switchedOff.map((tool) => `• \`${tool.name}\` — ${tool.reason}`).join('\n')}`,
        ]
      : []),
    context.kernel.modelConfigured
      ? ''
      : 'No model is configured, so tasks must be commands: `<tool> key=value …`, e.g. `disk_usage paths=/`.',
  ]
    .filter((line, index, lines) => line !== '' || lines[index - 1] !== '')
    .join('\n')
    .trim();
}

/** Each tool as it is typed, `name key=… [optional=…]`, with its first sentence; ` none` when there are none. */
function toolLines(context: CommandContext, names: string[]): string {
  if (names.length === 0) return ' none';
  const lines = names.map((name) => {
    const spec = context.kernel.registry.spec(name);
    if (!spec) return `• \`${name}\``;
    const usage = toolUsage(spec);
    return `• \`${[usage.name, usage.usage].filter(Boolean).join(' ')}\` — ${usage.summary}`;
  });
  return `\n${lines.join('\n')}`;
}

async function activeRuns(context: CommandContext): Promise<string> {
  const { kernel, principal } = context;
  const isAdmin = kernel.policy.isAdmin(principal);
  const runs: Run[] = [];
  for (const runId of await kernel.runs.activeRunIds()) {
    const run = await kernel.runs.find(runId).catch(() => undefined);
    if (run && kernel.policy.mayActOnRun(principal, run, { kind: 'status' }).allowed) runs.push(run);
  }
  if (runs.length === 0) return isAdmin ? 'No active runs.' : 'You have no active runs.';
  runs.sort((a, b) => b.createdAt - a.createdAt);
  return runs
    .slice(0, 20)
    .map(
      (run) =>
        `• \`${run.id}\` ${run.status.replaceAll('_', ' ')} — "${short(run.task, 60)}" by ${run.principal.displayName}, ${age(context.now - run.createdAt)} ago`,
    )
    .join('\n');
}

async function runStatus(context: CommandContext, runId: string): Promise<string> {
  const { kernel, principal } = context;
  const run = await kernel.runs.find(runId);
  if (!run || !kernel.policy.mayActOnRun(principal, run, { kind: 'status' }).allowed)
    return `There is no run ${runId} that you can see.`;
  const steps = run.events.slice(-6).map((event) => `• ${describeEvent(event)}`);
  const tokens = run.usage.promptTokens + run.usage.completionTokens;
  const usage = `${countWords(run.step, 'step')}, ${countWords(run.usage.toolCalls, 'tool call')}, ${countWords(tokens, 'token')}`;
  return [
    `\`${run.id}\` is ${stateWords(run)} — "${short(run.task, 80)}" by ${run.principal.displayName} (${usage})`,
    'Last steps:',
    ...steps,
  ].join('\n');
}

/** A finished run in the words its status line uses: "done", or "done, with a problem". */
function stateWords(run: Run): string {
  return run.status === 'finished' ? finishedWords(run).toLowerCase() : run.status.replaceAll('_', ' ');
}

function describeEvent(event: RunEvent): string {
  switch (event.type) {
    case 'tool_result':
      return `${event.tool}: ${event.ok ? '' : 'failed: '}${short(event.summary, 100)}`;
    case 'tool_call':
      return `called ${event.tool}`;
    case 'model_turn':
      return event.toolCalls.length > 0
        ? `model chose ${event.toolCalls.map((call) => call.name).join(', ')}`
        : 'model answered';
    case 'question_asked':
      return `asked: ${short(event.question, 100)}`;
    case 'failed':
      return `failed: ${short(event.message, 100)}`;
    case 'finished':
      return `finished: ${short(event.answer, 100)}`;
    default:
      return event.type.replaceAll('_', ' ');
  }
}

function short(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function age(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}
