// The `opsbot` command: run a task, answer a waiting run, print a trace, or check the settings.
import { parseArgs } from 'node:util';
import { errorMessage, OpsbotError } from '../../agent/errors.js';
import { silentLogger } from '../../agent/logger.js';
import { parseDuration } from '../../agent/policy/duration.js';
import { InvalidSettingsError } from '../config/settings-problem.js';
import { auditCommand } from './audit-command.js';
import { loadCliContext, localPrincipal } from './cli-context.js';
import { type CliIo, type CliStreams, processIo, terminalIo } from './cli-io.js';
import { withToolProblems } from './config-check-problems.js';

export { processIo };

import { clusterCommand } from './cluster-command.js';
import {
  answerCommand,
  configCheckCommand,
  decideCommand,
  permissionsCommand,
  traceCommand,
} from './commands.js';
import { discordRegisterCommand } from './discord-register-command.js';
import { grantsCommand, revokeCommand } from './grant-commands.js';
import { interactive } from './interactive.js';
import { mcpCommand } from './mcp/mcp-command.js';
import { patrolCommand } from './patrol-command.js';
import { EXIT, runTask } from './run-task.js';
import { showCommand } from './show-command.js';

const USAGE = `Usage: opsbot <command> [options]

Commands:
  run "<task>"              Run one task as the local operator; steps print as they happen.
  answer <run-id> "<text>"  Answer a run that waits for you. A choice's number as listed ("2") picks that
                            choice, as at the run's own prompt and in chat; other text is sent as typed.
  approve <approval-id>     Approve a waiting call (as --as); deny <approval-id> [reason] refuses it.
  approve <approval-id> --for 1h [--pattern <name>]
                            Approve it for a while (a grant, one of permissions.grant_durations): until then
                            the same tool, for the same requester, in the same channel, with the same arguments,
                            runs without a new approval. --pattern picks one of the tool's grant_patterns
                            the card offers, so its arguments may vary as it says. Exit 1 when refused.
  grants                    The approval grants in force: id, tool, arguments, requester, channel, by, until.
  revoke <grant-id>         End a grant now (admins and the tool's approvers). Exit 1 when refused.
  trace <run-id>            Print a run's trace.
  show <run-id>             Print a run in full: each call's whole output and the whole answer, redacted.
  audit [--since 24h] [--run <id>] [--who <person>] [--tool <name|glob>] [--kind <k,k>] [--all] [--json]
                            Print the audit log, filtered; a patrol run that changed nothing is folded into
                            one line (--all lists every line). --json exports every matching entry.
  cluster                   The queue, the processes seen in the last minute, the oldest waiting run.
  whoami | permissions      Your roles, or which tools you can run, need approval for, or may approve.
  config check              Validate opsbot.yaml and the environment, reach the store, ask the model server
                            (GET /models) whether it has OPENAI_MODEL, and list each MCP server's tools with their
                            risk, where it came from and their pin (a server down is a warning).
  patrol list|show|history <name>
                            Scheduled patrols: their state, each check, and their latest runs.
  patrol run <name>         Make a patrol's checks now and print them (posts nothing, changes no state).
                            Exit 0: all passed; 1: a check failed; 4: a check could not run; 2: no such patrol.
  patrol pause <name> [for 2h] | resume <name> | snooze <name>[/<check>] 4h
                            Steer a patrol, as your role allows (permissions.roles.<role>.patrols).
                            Exit 1 when it was refused or not done.
  mcp list [--json]         Each MCP server (mcp.servers) with its state, its tools as <server>__<tool>, each
                            tool's risk and where it came from, and its pin: trusted, changed, new (held back
                            until trusted), left out by include/exclude, or refused. Exit 1 when a server is down.
  mcp diff <server> [tool]  What changed since each held-back tool was trusted: old and new side by side.
  mcp trust <server> [tool] Accept the listed definitions (every changed or new tool, or the one named) as their
                            pins; admins only, audited. Exit 1 when refused or the server is down.
  discord register [--guild <id>]
                            Register the /ops command with Discord (DISCORD_TOKEN, DISCORD_APPLICATION_ID):
                            in one server at once, or globally (which can take a while to show).
  (no command)              Interactive mode: type tasks, one per line.

Exit codes:
  0  done: the run finished well, the check passed.
  1  failed: the run failed, or finished with a problem (a failed or refused check or action); config check found the
     store or the model unusable; approve, deny or revoke was refused or came too late; mcp list found a server
     down; mcp diff or trust could not reach the server, or trust was refused.
  2  usage: a bad command, option, --as user or settings file; nothing ran.
  3  waiting: the run waits for an answer (opsbot answer) or an approval (opsbot approve).
  4  patrol run only: a check could not run.

Options:
  --as <name>               Act as the local user local:<name> from opsbot.yaml (default: operator).
  --engine react|plan|command
                            Force an engine (default: engines.default with a model, command without).
  --config <path>           Settings file (default: $OPSBOT_CONFIG or ./opsbot.yaml).
  -h, --help                Show this help.
  --version                 Show opsbot's version and which program runs (the bundle and when it was built).
`;

/** What bin/opsbot.js knows of the program that runs: the text `opsbot --version` prints. */
export interface CliProgram {
  version: string;
}

export async function runCli(argv: string[], streams: CliStreams, program?: CliProgram): Promise<number> {
  const io = terminalIo(streams);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr.write(`opsbot: ${errorMessage(error)}\n\n${USAGE}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (values.version) {
    io.stdout.write(`${program?.version ?? 'opsbot from its TypeScript sources'}\n`);
    return EXIT.ok;
  }
  const engine = values.engine;
  if (engine !== undefined && engine !== 'react' && engine !== 'plan' && engine !== 'command') {
    io.stderr.write('opsbot: --engine must be react, plan or command\n');
    return EXIT.usage;
  }
  const [command, ...rest] = positionals;
  try {
    const context = await loadCliContext(io, values.config);
    // config check lists them with its other findings; every other command says them once, on stderr.
    if (command !== 'config')
      for (const warning of context.warnings) io.stderr.write(`opsbot: warning: ${warning}\n`);
    const principal = localPrincipal(context, values.as ?? 'operator', values.as !== undefined);
    switch (command) {
      case undefined:
        return await interactive(context, io, principal, engine);
      case 'run':
        if (rest.length === 0)
          return usage(io, 'run needs a task, e.g. opsbot run "is https://example.com up?"');
        return await runTask(context, io, { task: rest.join(' '), principal, ...(engine ? { engine } : {}) });
      case 'answer':
        if (rest.length < 2) return usage(io, 'answer needs a run id and an answer');
        return await answerCommand(context, io, rest[0]!, rest.slice(1).join(' '), principal);
      case 'approve':
      case 'deny': {
        if (rest.length < 1) return usage(io, `${command} needs an approval id (shown on the approval card)`);
        const grantForMs = grantLength(values.for, command);
        if (typeof grantForMs === 'string') return usage(io, grantForMs);
        if (values.pattern !== undefined && grantForMs === undefined)
          return usage(
            io,
            '--pattern goes with --for: a pattern widens a grant, and approving once has none',
          );
        const grant =
          grantForMs === undefined
            ? undefined
            : { grantForMs, ...(values.pattern !== undefined ? { grantPattern: values.pattern } : {}) };
        return await decideCommand(
          context,
          io,
          rest[0]!,
          command,
          rest.slice(1).join(' ') || undefined,
          principal,
          grant,
        );
      }
      case 'grants':
        if (rest.length > 0) return usage(io, 'grants takes no arguments');
        return await grantsCommand(context, io);
      case 'revoke':
        if (rest.length !== 1) return usage(io, 'revoke needs one grant id (grt_…; see opsbot grants)');
        return await revokeCommand(context, io, rest[0]!, principal);
      case 'trace':
        if (rest.length !== 1) return usage(io, 'trace needs one run id');
        return await traceCommand(context, io, rest[0]!);
      case 'show':
        if (rest.length !== 1) return usage(io, 'show needs one run id');
        return await showCommand(context, io, rest[0]!);
      case 'audit':
        return await auditCommand(context, io, {
          ...(values.since ? { since: values.since } : {}),
          ...(values.run ? { run: values.run } : {}),
          ...(values.who ? { who: values.who } : {}),
          ...(values.tool ? { tool: values.tool } : {}),
          ...(values.kind ? { kind: values.kind } : {}),
          all: values.all === true,
          json: values.json === true,
        });
      case 'whoami':
      case 'permissions':
        return await permissionsCommand(context, io, principal, command);
      case 'config':
        if (rest[0] !== 'check') return usage(io, 'the config command is: opsbot config check');
        return await configCheckCommand(context, io);
      case 'patrol':
      case 'patrols':
        return await patrolCommand(context, io, rest, principal);
      case 'cluster':
        return await clusterCommand(context, io);
      case 'mcp':
        return await mcpCommand(context, io, rest, { json: values.json === true, principal });
      case 'discord':
        if (rest[0] !== 'register')
          return usage(io, 'the discord command is: opsbot discord register [--guild <id>]');
        return await discordRegisterCommand(context, io, values.guild);
      default:
        return usage(io, `unknown command "${command}"`);
    }
  } catch (thrown) {
    // config check names every problem at once, those the tools find in the file's valid parts too.
    const error =
      command === 'config' && thrown instanceof InvalidSettingsError
        ? await withToolProblems(thrown, silentLogger).catch(() => thrown)
        : thrown;
    const message = error instanceof OpsbotError ? error.message : `unexpected error: ${errorMessage(error)}`;
    io.stderr.write(`opsbot: ${message}\n`);
    return error instanceof OpsbotError && error.fault === 'caller' ? EXIT.usage : EXIT.failed;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      as: { type: 'string' },
      engine: { type: 'string' },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
      since: { type: 'string' },
      run: { type: 'string' },
      who: { type: 'string' },
      tool: { type: 'string' },
      kind: { type: 'string' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      guild: { type: 'string' },
      for: { type: 'string' },
      pattern: { type: 'string' },
    },
  });
}

/** `--for 1h` as ms, undefined without it, or the usage error's words. */
function grantLength(text: string | undefined, command: 'approve' | 'deny'): number | string | undefined {
  if (text === undefined) return undefined;
  if (command === 'deny') return '--for goes with approve only: a denial is for this call';
  try {
    const ms = parseDuration(text);
    if (ms > 0) return ms;
  } catch {}
  return `--for needs a duration such as 15m, 1h or 4h, not "${text}"`;
}

function usage(io: CliIo, message: string): number {
  io.stderr.write(`opsbot: ${message}\n\n${USAGE}`);
  return EXIT.usage;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runCli(process.argv.slice(2), processIo()).then((code) => {
    process.exitCode = code;
  });
}
