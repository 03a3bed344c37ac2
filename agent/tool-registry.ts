// The set of tools a kernel knows, checked at start-up and looked up by own property only. Most are fixed at
// start; a live source (an MCP server's listing) adds tools that come, change and go while the bot runs.
import { CallerError, ErrorCode } from './errors.js';
import type { ModelToolSpec } from './model/model-client.js';
import { type Tool, toolOffReason, toolParametersSchema } from './tool.js';

/**
 * Tools whose set changes while the bot runs. The source keeps their names apart from the fixed tools' and from
 * each other's (it is given the fixed names); a name that is fixed here is never looked up in a source.
 */
export interface LiveToolSource {
  tools(): readonly Tool[];
  /** Why a tool of this name is missing for now, when it may yet come (its server has not answered). */
  awaitedReason?(name: string): string | undefined;
}

export class ToolRegistry {
  private readonly byName: Record<string, Tool> = Object.create(null);
  private readonly specs = new WeakMap<Tool, ModelToolSpec>();

  constructor(
    tools: Iterable<Tool>,
    private readonly live: readonly LiveToolSource[] = [],
  ) {
    for (const tool of tools) {
      if (Object.hasOwn(this.byName, tool.name)) {
        throw new CallerError(
          ErrorCode.InvalidTool,
          `Two tools are named "${tool.name}"; tool names must be unique (rename one of them in opsbot.yaml or its module)`,
        );
      }
      this.byName[tool.name] = tool;
      this.specOf(tool);
    }
  }

  /** The tool with exactly this name; names a model invents (`__proto__`, `toString`) find nothing. */
  get(name: string): Tool | undefined {
    if (Object.hasOwn(this.byName, name)) return this.byName[name];
    for (const source of this.live) {
      const found = source.tools().find((tool) => tool.name === name);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /**
   * Why a tool that is not known now may still come (an MCP server down since start lists it once it answers), so
   * a call to it fails transient with that, not as an unknown tool; undefined for a known name or a plain unknown.
   */
  awaitedReason(name: string): string | undefined {
    if (this.get(name) !== undefined) return undefined;
    for (const source of this.live) {
      const reason = source.awaitedReason?.(name);
      if (reason !== undefined) return reason;
    }
    return undefined;
  }

  /** Every tool known now, switched-off ones included. */
  all(): Tool[] {
    return [...Object.values(this.byName), ...this.liveTools()];
  }

  /** The tools not switched off now (see Tool.availability): what may be offered, listed and granted. */
  available(): Tool[] {
    return this.all().filter((tool) => toolOffReason(tool) === undefined);
  }

  names(): string[] {
    return this.all().map((tool) => tool.name);
  }

  /** The JSON-Schema description of a tool, as the model receives it. */
  spec(name: string): ModelToolSpec | undefined {
    const tool = this.get(name);
    return tool === undefined ? undefined : this.specOf(tool);
  }

  /** Read-only view for code that wants a record (policy checks): every tool known now. */
  asRecord(): Readonly<Record<string, Tool>> {
    if (this.live.length === 0) return this.byName;
    return recordOf(this.all());
  }

  /** The record of the tools not switched off: what help and the permissions listing show a person. */
  availableRecord(): Readonly<Record<string, Tool>> {
    return recordOf(this.available());
  }

  private liveTools(): Tool[] {
    return this.live.flatMap((source) =>
      source.tools().filter((tool) => !Object.hasOwn(this.byName, tool.name)),
    );
  }

  private specOf(tool: Tool): ModelToolSpec {
    const known = this.specs.get(tool);
    if (known !== undefined) return known;
    const spec = {
      name: tool.name,
      description: tool.description,
      parameters: toolParametersSchema(tool.input),
    };
    this.specs.set(tool, spec);
    return spec;
  }
}

function recordOf(tools: readonly Tool[]): Record<string, Tool> {
  const record: Record<string, Tool> = Object.create(null);
  for (const tool of tools) record[tool.name] ??= tool;
  return record;
}
