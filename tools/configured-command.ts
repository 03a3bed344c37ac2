// Turns one `tools.commands` entry of the settings into a tool that runs an allow-listed program, no shell.
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { formatDuration } from '../agent/duration-text.js';
import type { Logger } from '../agent/logger.js';
import { defineTool, type Tool } from '../agent/tool.js';
import { errorText, formatBytes, timeoutField, withCallLimits } from './call-limits.js';
import {
  CommandSettingsError,
  checkArgvTemplate,
  parameterShape,
  substituteArguments,
} from './command-parameters.js';
import { type ExecutableAllowList, ExecutableNotFound, ExecutableRefusal } from './executable-allow-list.js';
import { type CommandOutcome, runCommand } from './run-command.js';
import type { CommandSettings } from './tool-settings-schema.js';

export interface ConfiguredCommandOptions {
  allowList: ExecutableAllowList;
  outputLimitBytes: number;
  /** Base for a relative `cwd` in the command's settings, and the default working directory. */
  cwd: string;
  /** PATH used to find programs named without a path; process.env.PATH when absent. */
  pathVariable?: string;
  /** opsbot's environment, which the child's allow-listed variables come from; process.env when absent. */
  env?: NodeJS.ProcessEnv;
  killGraceMs?: number;
  logger?: Logger;
}

function shellQuoted(argv: string[]): string {
  return argv
    .map((argument) => (/^[\w@%+=:,./{}-]+$/.test(argument) ? argument : JSON.stringify(argument)))
    .join(' ');
}

function summarize(shown: string, outcome: CommandOutcome, limitBytes: number, timeoutMs: number): string {
  if (outcome.spawnError) return `\`${shown}\` could not be started: ${outcome.spawnError}.`;
  if (outcome.timedOut) {
    return `\`${shown}\` timed out after ${formatDuration(timeoutMs)}; its whole process group was stopped.`;
  }
  if (outcome.cancelled)
    return `\`${shown}\` was cancelled after ${outcome.durationMs} ms and its process group stopped.`;
  if (outcome.flooded) {
    return `\`${shown}\` wrote more output than allowed and was stopped; only the first and last ${formatBytes(limitBytes / 2)} are kept.`;
  }
  const size = outcome.stdout.totalBytes + outcome.stderr.totalBytes;
  const how = outcome.signal ? `was killed by ${outcome.signal}` : `exited with code ${outcome.exitCode}`;
  return `\`${shown}\` ${how} in ${outcome.durationMs} ms with ${formatBytes(size)} of output${outcome.stdout.truncated || outcome.stderr.truncated ? ' (truncated, head and tail kept)' : ''}.`;
}

function describe(name: string, command: CommandSettings): string {
  return `${command.description.trim()}
Runs: ${shellQuoted(command.argv)} (each {placeholder} is replaced by one whole argument).
Result data: exit_code, signal, timed_out, flooded, duration_ms, stdout, stderr (head and tail kept when long).
Use this only for what the description above says, with parameter values that fit their descriptions.
Do not use it to run anything else: ${name} passes values literally without a shell, so shell syntax does nothing, and values starting with "-" are refused unless the parameter allows them.`;
}

function secretParametersOf(command: CommandSettings): { secretParameters?: string[] } {
  const secrets = Object.entries(command.parameters)
    .filter(([, parameter]) => parameter.secret)
    .map(([name]) => name);
  return secrets.length > 0 ? { secretParameters: secrets } : {};
}

/**
 * Builds the tool for one command. Throws CommandSettingsError or ExecutableRefusal at start-up, naming the
 * command, when its template, parameters, working directory or program are not acceptable.
 */
export async function createConfiguredCommandTool(
  name: string,
  command: CommandSettings,
  options: ConfiguredCommandOptions,
): Promise<Tool> {
  const where = `tools.commands.${name}`;
  checkArgvTemplate(name, command);
  const shape = parameterShape(name, command);
  const program = command.argv[0] ?? '';
  try {
    await options.allowList.resolve(program, options.pathVariable);
  } catch (error) {
    // A program the allow-list names but this machine lacks (systemctl in a container) is not a settings
    // mistake: the tool is kept, and each call refuses until the program is installed.
    if (!(error instanceof ExecutableNotFound && options.allowList.names(program))) {
      throw new ExecutableRefusal(`${where}.argv[0]: ${errorText(error)}`);
    }
    options.logger?.warn(
      { command: name, program },
      `${where}: ${error.message}; calls will fail until it is installed`,
    );
  }
  const cwd = resolve(options.cwd, command.cwd ?? '.');
  if (!(await stat(cwd).catch(() => undefined))?.isDirectory()) {
    throw new CommandSettingsError(`${where}.cwd: ${cwd} is not a directory`);
  }
  const maxTimeoutMs = Math.max(100, command.timeout);
  const input = z.object({ ...shape, timeout_ms: timeoutField(command.timeout, maxTimeoutMs) }).strict();

  return defineTool({
    name,
    description: describe(name, command),
    input,
    risk: command.risk,
    timeoutMs: command.timeout,
    approvalTtlMs: command.approval_ttl,
    approvals: command.approvals,
    ...(command.impact ? { impact: command.impact } : {}),
    ...(command.grants !== undefined ? { grants: command.grants } : {}),
    ...(command.grant_patterns ? { grantPatterns: command.grant_patterns } : {}),
    ...secretParametersOf(command),
    // What the approver reads is what execute runs: the same substitution, the program as configured.
    describeCall: (args) => shellQuoted([program, ...substituteArguments(command.argv, args)]),
    execute(ctx, args) {
      return withCallLimits(ctx, args.timeout_ms as number | undefined, command.timeout, async (limits) => {
        let executable: Awaited<ReturnType<ExecutableAllowList['resolve']>>;
        try {
          // Again at call time: the file behind the name may have changed since start-up.
          executable = await options.allowList.resolve(program, options.pathVariable);
        } catch (error) {
          if (!(error instanceof ExecutableRefusal)) throw error;
          return { ok: false, summary: `${name} refused: ${error.message}.`, data: { refused: true } };
        }
        const argv = substituteArguments(command.argv, args as Record<string, unknown>);
        const shown = shellQuoted([program, ...argv]);
        const outcome = await runCommand({
          file: executable.file,
          argv0: executable.argv0,
          args: argv,
          cwd,
          env: options.env,
          environment: command.env,
          // Unique per call, so a timeout never touches another call's processes; the run id shows whose they are.
          callId: `${ctx.runId}.${randomUUID()}`,
          timeoutMs: limits.remainingMs(),
          signal: limits.signal,
          outputLimitBytes: options.outputLimitBytes,
          killGraceMs: options.killGraceMs,
        });
        const ok =
          outcome.exitCode === 0 &&
          !outcome.timedOut &&
          !outcome.cancelled &&
          !outcome.flooded &&
          !outcome.spawnError;
        return {
          ok,
          summary: summarize(shown, outcome, options.outputLimitBytes, limits.timeoutMs),
          data: {
            argv: [executable.argv0, ...argv],
            exit_code: outcome.exitCode,
            signal: outcome.signal,
            timed_out: outcome.timedOut,
            cancelled: outcome.cancelled,
            flooded: outcome.flooded,
            duration_ms: outcome.durationMs,
            stdout: outcome.stdout.text,
            stderr: outcome.stderr.text,
            stdout_bytes: outcome.stdout.totalBytes,
            stderr_bytes: outcome.stderr.totalBytes,
            output_truncated: outcome.stdout.truncated || outcome.stderr.truncated,
          },
        };
      });
    },
  });
}
