// Interactive mode's own commands — help, whoami, permissions, status, cancel, approve, deny, answer, grants,
// revoke — which never become tasks for the model.
import { errorMessage } from '../../agent/errors.js';
import {
  describePermissions,
  formatPermissions,
  formatWhoami,
} from '../../agent/policy/describe-permissions.js';
import type { Principal } from '../../agent/principal.js';
import type { Opsbot } from '../compose.js';
import { revokeUsage } from '../router/grant-replies.js';
import { parseRouterCommand, runRouterCommand } from '../router/router-commands.js';
import type { CliIo, LineReader } from './cli-io.js';
import { formatGrants, formatRevoked } from './grant-commands.js';
import { carryOn, EXIT } from './run-task.js';
import type { SessionRuns } from './session-runs.js';
import { bold, dim, red } from './terminal-colors.js';
import { renderMarkdown } from './terminal-markdown.js';
import { formatToolHelp } from './tool-help.js';

export type InteractiveCommand =
  | { name: 'help' | 'whoami' | 'permissions' }
  | { name: 'status'; runId?: string }
  | { name: 'cancel'; runId?: string }
  | { name: 'approve'; approvalId: string }
  | { name: 'deny'; approvalId: string; reason?: string }
  | { name: 'answer'; runId: string; text: string }
  | { name: 'grants' }
  | { name: 'revoke'; grantId: string }
  | { name: 'revoke-usage'; given?: string }
  /** The command word with a missing or malformed id: say how to use it rather than start a task. */
  | { name: 'usage'; message: string };

const APPROVAL_ID = /^apv_[\w-]+$/;
const RUN_ID = /^run_[\w-]+$/;

/** Exact command shapes only, so "deny access to the bucket" stays a task. */
export function parseInteractiveCommand(line: string): InteractiveCommand | undefined {
  const words = line.trim().split(/\s+/);
  const [first = '', second = ''] = words;
  const verb = first.toLowerCase();
  if ((verb === 'approve' || verb === 'deny') && (words.length === 1 || APPROVAL_ID.test(second))) {
    if (!second)
      return { name: 'usage', message: `${verb} needs an approval id: ${verb} apv_… (shown on the card)` };
    const reason = words.slice(2).join(' ');
    return verb === 'approve'
      ? { name: 'approve', approvalId: second }
      : { name: 'deny', approvalId: second, ...(reason ? { reason } : {}) };
  }
  if (verb === 'answer' && (words.length === 1 || RUN_ID.test(second))) {
    if (!second || words.length < 3)
      return { name: 'usage', message: 'answer needs a run id and the answer: answer run_… <text>' };
    return { name: 'answer', runId: second, text: line.trim().split(/\s+/).slice(2).join(' ') };
  }
  const command = parseRouterCommand(line);
  if (command === undefined || command.name === 'patrol') return undefined;
  return command;
}

export interface InteractiveCommandContext {
  opsbot: Opsbot;
  io: CliIo;
  principal: Principal;
  reader: LineReader;
  session: SessionRuns;
}

/** Runs one command; returns its exit code, as the same command given to `opsbot` would. */
export async function runInteractiveCommand(
  command: InteractiveCommand,
  context: InteractiveCommandContext,
): Promise<number> {
  const { opsbot, io, principal } = context;
  const write = (text: string) => io.stdout.write(`${text}\n`);
  try {
    switch (command.name) {
      case 'usage':
        write(red(command.message));
        return EXIT.usage;
      case 'help':
        write(helpText(opsbot, principal));
        return EXIT.ok;
      case 'whoami':
      case 'permissions': {
        const description = permissionsHere(opsbot, principal);
        write(
          command.name === 'whoami' ? formatWhoami(principal, description) : formatPermissions(description),
        );
        return EXIT.ok;
      }
      case 'status':
      case 'cancel': {
        const text = await runRouterCommand(command, {
          kernel: opsbot.kernel,
          settings: opsbot.settings,
          principal,
          conversation: { platform: 'cli', channelId: 'terminal' },
          slashCommand: '',
          now: Date.now(),
        });
        write(renderMarkdown(text));
        return EXIT.ok;
      }
      case 'approve':
      case 'deny':
        return await decide(command, context);
      // The same table and words as `opsbot grants` and `opsbot revoke`, terminal controls stripped.
      case 'grants':
        write(opsbot.redactor.redact(formatGrants(await opsbot.kernel.listGrants())));
        return EXIT.ok;
      case 'revoke': {
        const result = await opsbot.kernel.revokeGrant(command.grantId, principal);
        write(opsbot.redactor.redact(formatRevoked(result)));
        return result.ok ? EXIT.ok : EXIT.failed;
      }
      case 'revoke-usage':
        write(red(revokeUsage({ slashCommand: '' }, command.given)));
        return EXIT.usage;
      case 'answer':
        return await context.session.busy(async () => {
          context.session.watch(command.runId);
          await opsbot.kernel.answer(command.runId, command.text, principal);
          return carryOn(opsbot, io, command.runId, principal, context.reader);
        });
    }
  } catch (error) {
    write(red(`opsbot: ${opsbot.redactor.redact(errorMessage(error))}`));
    return EXIT.usage;
  }
}

async function decide(
  command: Extract<InteractiveCommand, { name: 'approve' | 'deny' }>,
  context: InteractiveCommandContext,
): Promise<number> {
  const { opsbot, io, principal } = context;
  return context.session.busy(async () => {
    const reason = command.name === 'deny' ? command.reason : undefined;
    const click = await opsbot.kernel.decideApproval(command.approvalId, principal, command.name, reason);
    io.stdout.write(`${renderMarkdown(click.message)}\n`);
    if (!click.settled) return EXIT.failed;
    const runId = 'approval' in click.result ? click.result.approval?.runId : undefined;
    if (runId === undefined) return EXIT.ok;
    // The decided call runs in this process: follow it to its end, as `opsbot approve` does. Questions the run
    // asks afterwards are for its requester, so they are not read from this prompt.
    context.session.watch(runId);
    return carryOn(opsbot, io, runId, principal, undefined);
  });
}

function permissionsHere(opsbot: Opsbot, principal: Principal) {
  return describePermissions(opsbot.settings.permissions, principal, opsbot.kernel.registry.asRecord(), {
    platform: 'cli',
    channelId: 'terminal',
  });
}

function helpText(opsbot: Opsbot, principal: Principal): string {
  const description = permissionsHere(opsbot, principal);
  const registry = opsbot.kernel.registry;
  const tools = (names: string[], note: string) =>
    names.flatMap((name) => {
      const spec = registry.spec(name);
      return spec ? [formatToolHelp(spec, note)] : [];
    });
  return [
    bold('Commands'),
    `  ${(opsbot.kernel.modelConfigured ? '<task in your words>' : '<tool> key=value …').padEnd(24)}  start a task`,
    '  status [run_…]            your active runs, or one run with its last steps',
    '  cancel run_…              stop a run',
    '  approve apv_…             approve a waiting call (the id is on the approval card)',
    '  deny apv_… [reason]       refuse it, optionally saying why',
    "  answer run_… <text>       answer a run that waits for you; a choice's number picks that choice",
    '  whoami | permissions      your roles; what you can run and approve here',
    '  grants                    approval grants in force',
    "  revoke grt_…              end a grant early (admins and the tool's approvers)",
    '  help | exit',
    '',
    bold('Tools you can use'),
    ...(description.direct.length > 0 ? tools(description.direct, '') : [dim('  none')]),
    ...(description.needsApproval.length > 0
      ? ['', bold('Tools that wait for an approver'), ...tools(description.needsApproval, 'needs approval')]
      : []),
    ...(description.switchedOff.length > 0
      ? [
          '',
          bold('Switched off now'),
          ...description.switchedOff.map((tool) => `  ${tool.name}  ${dim(tool.reason)}`),
        ]
      : []),
    '',
    dim('Every tool also takes timeout_ms=<milliseconds>, up to its own limit.'),
    dim(
      opsbot.kernel.modelConfigured
        ? 'Ask in plain words, or name a tool with key=value arguments, e.g. disk_usage paths=/,/var'
        : 'No model is configured: a task is a tool and its arguments, e.g. disk_usage paths=/,/var',
    ),
  ].join('\n');
}
