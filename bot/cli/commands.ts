// The small CLI commands: trace, config check and answer.

import { join } from 'node:path';
import { durationSetting } from '../../agent/duration-text.js';
import { CallerError, errorMessage } from '../../agent/errors.js';
import type { DecideOptions } from '../../agent/kernel.js';
import {
  describePermissions,
  formatPermissions,
  formatWhoami,
} from '../../agent/policy/describe-permissions.js';
import type { Principal } from '../../agent/principal.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { openStore } from '../../agent/store/open-store.js';
import type { Store } from '../../agent/store/store.js';
import { readStoredTrace } from '../../agent/store-trace-sink.js';
import { type CorruptTraceLine, formatTrace, readTrace, type TraceRecord } from '../../agent/trace.js';
import type { Opsbot } from '../compose.js';
import { type CliContext, terminalOpsbot } from './cli-context.js';
import type { CliIo } from './cli-io.js';
import { mcpConfigCheckLines } from './mcp/mcp-config-check.js';
import { EXIT, exitCodeOf, followRuns } from './run-task.js';
import { settingsSummary } from './settings-summary.js';
import { dim, green, red, yellow } from './terminal-output.js';

/**
 * A run's trace, from the Store (written by whichever process stepped the run, kept for limits.trace_history),
 * or else from this machine's data folder (a run traced before the Store kept traces).
 */
export async function traceCommand(context: CliContext, io: CliIo, runId: string): Promise<number> {
  const onCorruptLine = (problem: CorruptTraceLine) =>
    io.stderr.write(`opsbot: skipped ${problem.file}:${problem.line}: ${problem.reason}\n`);
  const storeUrl = context.environment.OPSBOT_STORE_URL;
  const store = await openStore(storeUrl, { logger: context.logger });
  let records: TraceRecord[];
  try {
    records = await readStoredTrace(store, runId, onCorruptLine);
  } finally {
    await store.close();
  }
  const dir = join(context.environment.OPSBOT_DATA_DIR, 'traces');
  if (records.length === 0) records = await readTrace(dir, runId, { onCorruptLine });
  if (records.length === 0) {
    const kept = durationSetting(context.loaded.settings.limits.trace_history);
    io.stderr.write(
      `opsbot: no trace for run ${runId} in ${storeUrl} or in ${dir}. Traces are kept in the store for ${kept} ` +
        '(limits.trace_history) after the run ends; is OPSBOT_STORE_URL the one the bot uses, and the run id ' +
        'as its status line shows it? `opsbot show <run>` prints what the store holds of the run itself\n',
    );
    return EXIT.failed;
  }
  io.stdout.write(`${formatTrace(records)}\n`);
  return EXIT.ok;
}

/**
 * Validates settings and environment, builds every tool, pings the store, asks the model server whether it
 * has the model and lists each MCP server's tools. Exit 0 when all is well (an MCP server down is a warning:
 * the bot starts without it), 1 when the store or the model is not usable, 2 for invalid settings.
 */
export async function configCheckCommand(context: CliContext, io: CliIo): Promise<number> {
  const { loaded } = context;
  const opened = await openStoreToCheck(context);
  // Nothing is posted while checking; the terminal chat is a sink. The MCP servers are not started with it:
  // the MCP section connects to each once and only looks (starting them would record first-sight pins).
  const opsbot = await terminalOpsbot(context, () => {}, {
    mcp: 'skip',
    store: 'store' in opened ? opened.store : new MemoryStore(),
  }).catch(async (error: unknown) => {
    if ('store' in opened) await opened.store.close();
    throw error;
  });
  try {
    const settings = loaded.settings;
    const source = loaded.source === 'file' ? loaded.path : `built-in defaults (${loaded.path} not found)`;
    const lines = [
      green(`✔ settings OK: ${source}`),
      `  roles: ${Object.keys(settings.permissions.roles).join(', ')} (default: ${settings.permissions.default_role})`,
      `  identities: ${Object.keys(settings.permissions.identities).length}`,
      `  commands: ${Object.keys(settings.tools.commands).join(', ') || 'none'}`,
      ...settingsSummary(settings).map((line) => `  ${line}`),
      // Without the store, opsbot was built on a memory one for the other checks: that is not worth a line.
      ...opsbot
        .describe()
        .filter((line) => 'store' in opened || !line.startsWith('store: '))
        .map((line) => `  ${line}`),
      ...[...context.warnings, ...opsbot.warnings].map((warning) => yellow(`⚠ ${warning}`)),
    ];
    let ok = true;
    let storeReachable = 'store' in opened;
    try {
      if (!('store' in opened)) throw new Error(opened.problem);
      await opsbot.store.ping();
      lines.push(green('✔ store reachable'));
    } catch (error) {
      ok = false;
      storeReachable = false;
      lines.push(red(`✘ store unreachable: ${errorMessage(error)}`));
    }
    const health = await opsbot.modelHealth?.check();
    if (health === undefined) lines.push(dim('· no model configured: the command engine answers'));
    // The summary model is asked for as the main one is: a misspelt name would otherwise only cost summaries.
    for (const found of [health, await opsbot.summaryModelHealth?.check()]) {
      if (found === undefined) continue;
      if (found.state === 'ready') lines.push(green(`✔ ${found.detail}`));
      else if (found.state === 'unlisted') lines.push(yellow(`⚠ ${found.detail}`));
      else {
        ok = false;
        lines.push(red(`✘ ${found.detail}`));
      }
    }
    lines.push(...(await mcpConfigCheckLines(context, io.env, storeReachable ? opsbot.store : undefined)));
    io.stdout.write(`${context.redactor.redact(lines.join('\n'))}\n`);
    return ok ? EXIT.ok : EXIT.failed;
  } finally {
    await opsbot.close();
  }
}

/**
 * OPSBOT_STORE_URL opened, or why it could not be: config check goes on without it (on a memory store) to check
 * the rest, and says so. A URL that is not one is a settings error, as everywhere.
 */
async function openStoreToCheck(context: CliContext): Promise<{ store: Store } | { problem: string }> {
  try {
    return { store: await openStore(context.environment.OPSBOT_STORE_URL, { logger: context.logger }) };
  } catch (error) {
    if (error instanceof CallerError) throw error;
    return { problem: errorMessage(error) };
  }
}

/** Builds an opsbot that prints to this terminal, follows its runs, does `work`, and always closes it. */
async function withTerminalOpsbot(
  context: CliContext,
  io: CliIo,
  work: (opsbot: Opsbot) => Promise<number>,
): Promise<number> {
  const write = (line: string) => io.stdout.write(`${line}\n`);
  const opsbot = await terminalOpsbot(context, write);
  const stop = followRuns(opsbot.kernel, write);
  try {
    return await work(opsbot);
  } catch (error) {
    io.stderr.write(`opsbot: ${errorMessage(error)}\n`);
    return error instanceof CallerError ? EXIT.usage : EXIT.failed;
  } finally {
    stop();
    await opsbot.close();
  }
}

export function answerCommand(
  context: CliContext,
  io: CliIo,
  runId: string,
  answer: string,
  principal: Principal,
): Promise<number> {
  return withTerminalOpsbot(context, io, async (opsbot) => {
    await opsbot.kernel.answer(runId, answer, principal);
    return exitCodeOf(await opsbot.kernel.settled(runId));
  });
}

export function decideCommand(
  context: CliContext,
  io: CliIo,
  approvalId: string,
  decision: 'approve' | 'deny',
  reason: string | undefined,
  principal: Principal,
  grant?: DecideOptions,
): Promise<number> {
  return withTerminalOpsbot(context, io, async (opsbot) => {
    const options = grant ?? {};
    const click = await opsbot.kernel.decideApproval(approvalId, principal, decision, reason, options);
    io.stdout.write(`${click.message}\n`);
    // Refused, already decided, expired or not found: nothing was done, but the command was well formed.
    if (!click.settled) return EXIT.failed;
    // The approved call runs in this process's worker: wait for it, so its steps print before the CLI exits, and
    // say 1 when the approved action itself failed, so that `opsbot approve … && next-step` stops there.
    if ('approval' in click.result && click.result.approval) {
      const { runId, callId } = click.result.approval;
      const run = await opsbot.kernel.settled(runId);
      if (run.failedActions.some((failed) => failed.callId === callId)) return EXIT.failed;
    }
    return EXIT.ok;
  });
}

/** `opsbot whoami` and `opsbot permissions`: the same answers the chat commands give, for the terminal user. */
export function permissionsCommand(
  context: CliContext,
  io: CliIo,
  principal: Principal,
  what: 'whoami' | 'permissions',
): Promise<number> {
  return withTerminalOpsbot(context, io, async (opsbot) => {
    const description = describePermissions(
      context.loaded.settings.permissions,
      principal,
      opsbot.kernel.registry.asRecord(),
      { platform: 'cli', channelId: 'terminal' },
    );
    io.stdout.write(
      `${what === 'whoami' ? formatWhoami(principal, description) : formatPermissions(description)}\n`,
    );
    return EXIT.ok;
  });
}
