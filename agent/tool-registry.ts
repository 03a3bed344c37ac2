// The set of tools a kernel knows, checked at start-up and looked up by own property only.
import { CallerError, ErrorCode } from './errors.js';
import type { ModelToolSpec } from './model/model-client.js';
import { type Tool, toolOffReason, toolParametersSchema } from './tool.js';

export class ToolRegistry {
  private readonly byName: Record<string, Tool> = Object.create(null);
  private readonly specs = new Map<string, ModelToolSpec>();

  constructor(tools: Iterable<Tool>) {
    for (const tool of tools) {
      if (Object.hasOwn(this.byName, tool.name)) {
        throw new CallerError(
          ErrorCode.InvalidTool,
          `Two tools are named "${tool.name}"; tool names must be unique (rename one of them in opsbot.yaml or its module)`,
        );
      }
      this.byName[tool.name] = tool;
      this.specs.set(tool.name, {
        name: tool.name,
        description: tool.description,
        parameters: toolParametersSchema(tool.input),
      });
    }
  }

  /** The tool with exactly this name; names a model invents (`__proto__`, `toString`) find nothing. */
  get(name: string): Tool | undefined {
    return Object.hasOwn(this.byName, name) ? this.byName[name] : undefined;
  }

  all(): Tool[] {
    return Object.values(this.byName);
  }

  /** The tools not switched off now (see Tool.availability): what may be offered. */
  available(): Tool[] {
    return this.all().filter((tool) => toolOffReason(tool) === undefined);
  }

  names(): string[] {
    return Object.keys(this.byName);
  }

  /** The JSON-Schema description of a tool, as the model receives it. */
  spec(name: string): ModelToolSpec | undefined {
    return this.specs.get(name);
  }

  /** Read-only view for code that wants a record (policy checks). */
  asRecord(): Readonly<Record<string, Tool>> {
    return this.byName;
  }
}
