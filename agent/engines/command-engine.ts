// The command engine: runs one `tool key=value` command, or the run's planned call (a button's), through the shared
// executor, with no model.
import { coerce } from '../missing-arguments.js';
import type { PlannedCall, Run } from '../run.js';
import type { ToolRegistry } from '../tool-registry.js';
import { parseCommand } from './command-parser.js';
import type { Engine, PlanOutcome } from './engine.js';

export interface CommandEngineOptions {
  registry: ToolRegistry;
  aliases: Readonly<Record<string, string>>;
  /** The commands this person may run, for help text. */
  availableCommands(run: Run): string[];
  modelConfigured: boolean;
}

export class CommandEngine implements Engine {
  readonly kind = 'command' as const;

  constructor(private readonly options: CommandEngineOptions) {}

  /** Whether the text is a typed command (or `help`) this engine runs as it is, with no model. */
  accepts(text: string): boolean {
    return this.parse(text).kind !== 'not_a_command';
  }

  /** For a reply that says the model is down: the commands this person can still type. */
  commandsHint(run: Run): string {
    const commands = this.options.availableCommands(run);
    const listed =
      commands.length > 0 ? commands.map((name) => `\`${name}\``).join(', ') : '(none for your role)';
    return `Typed commands still work without the model: ${listed}. Type \`help\` for how, e.g. \`${commands[0] ?? 'help'}${commands[0] ? ' key=value' : ''}\`.`;
  }

  private parse(text: string) {
    const { registry } = this.options;
    // A tool its server has not brought yet is still typed as a command: its call says why it cannot run now.
    const isTool = (name: string) =>
      registry.get(name) !== undefined || registry.awaitedReason(name) !== undefined;
    return parseCommand(text, isTool, this.options.aliases);
  }

  async plan(run: Run): Promise<PlanOutcome> {
    const lastTool = [...run.messages].reverse().find((message) => message.role === 'tool');
    if (lastTool) {
      const ran = run.events.some(
        (event) => event.type === 'tool_result' && event.callId === lastTool.toolCallId && event.ran === true,
      );
      return answerFromToolMessage(lastTool.name, lastTool.content, ran);
    }
    // A button's run (an alert group's Silence) carries its call ready made: no typed text to parse.
    const planned = run.plan?.calls;
    if (planned) {
      run.messages.push({
        role: 'assistant',
        content: null,
        toolCalls: planned.map((call) => ({ id: call.id, name: call.name, arguments: call.rawArguments })),
      });
      return { kind: 'calls', calls: planned };
    }

    const parsed = this.parse(run.task);
    if (parsed.kind === 'call') {
      const spec = this.options.registry.spec(parsed.tool);
      const properties = (spec?.parameters.properties ?? {}) as Record<string, { type?: string }>;
      const args: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(parsed.args)) {
        args[key] = coerce(Object.hasOwn(properties, key) ? properties[key]! : {}, value);
      }
      const call: PlannedCall = {
        id: `cmd_${run.step}`,
        name: parsed.tool,
        rawArguments: JSON.stringify(args),
        args,
      };
      run.messages.push({
        role: 'assistant',
        content: null,
        toolCalls: [{ id: call.id, name: call.name, arguments: call.rawArguments }],
      });
      return { kind: 'calls', calls: [call] };
    }
    return {
      kind: 'answer',
      answer: this.helpText(run, parsed.kind === 'not_a_command' ? parsed.firstWord : undefined),
    };
  }

  private helpText(run: Run, unknownWord: string | undefined): string {
    const commands = this.options.availableCommands(run);
    const aliasLines = Object.entries(this.options.aliases).map(
      ([alias, target]) => `• \`${alias}\` → \`${target}\``,
    );
    const lines: string[] = [];
    if (unknownWord !== undefined && !this.options.modelConfigured) {
      lines.push(
        `I can only run commands right now: no model is configured, so I cannot understand free text ("${truncate(run.task, 60)}").`,
        'To talk to me in plain language, set OPENAI_BASE_URL (for example http://127.0.0.1:11434/v1 for Ollama, or your vLLM or LiteLLM server) or OPENAI_API_KEY, plus OPENAI_MODEL, and restart.',
        '',
      );
    } else if (unknownWord !== undefined) {
      lines.push(`"${unknownWord}" is not a command I know.`, '');
    }
    lines.push('Commands you can run: `<tool> key=value …`');
    lines.push(
      ...(commands.length > 0 ? commands.map((name) => `• \`${name}\``) : ['• (none for your role)']),
    );
    if (aliasLines.length > 0) lines.push('', 'Shortcuts:', ...aliasLines);
    return lines.join('\n');
  }
}

/** The answer to a typed command, from its tool message; `ran` when the call reached its tool (its event says so). */
function answerFromToolMessage(tool: string, content: string, ran: boolean): PlanOutcome {
  try {
    const parsed = JSON.parse(content) as {
      ok?: boolean;
      summary?: string;
      data?: unknown;
      error?: { message?: string; class?: string };
    };
    if (parsed.error) {
      const message = parsed.error.message ?? 'unknown error';
      // A call that reached its tool failed in the tool's own words (a target that said no ran, and said no); one
      // that never reached it says so.
      return { kind: 'answer', answer: ran ? message : `${tool} did not run: ${message}`, ok: false };
    }
    const summary = parsed.summary ?? `${tool} finished.`;
    return {
      kind: 'answer',
      answer: summary,
      details: [{ tool, summary, data: parsed.data }],
      ok: parsed.ok !== false,
    };
  } catch {
    // Output cut as text (JSON that did not fit even with its lists cut): its start is its summary's words.
    return { kind: 'answer', answer: truncate(content, 2000) };
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
