// A tool is data plus one execute(): a name, a description written like API docs, a zod input, and a risk.
import { z } from 'zod';
import type { Conversation } from './conversation.js';
import { CallerError, ErrorCode } from './errors.js';
import type { Logger } from './logger.js';
import { type GrantPatterns, GrantPatternsSchema } from './policy/grant-patterns.js';
import type { Principal } from './principal.js';

export const RiskSchema = z.enum(['read', 'write', 'danger']);
export type Risk = z.infer<typeof RiskSchema>;

export const ToolResultSchema = z.object({
  ok: z.boolean(),
  /** One or two sentences a person and the model can read. */
  summary: z.string(),
  /** Structured detail; must serialize to JSON. */
  data: z.unknown().optional(),
});
export type ToolResult = z.infer<typeof ToolResultSchema>;

export interface ToolContext {
  /** Aborts when the run is cancelled, or at the deadline with a ToolTimeoutError (see tool-timeout.ts). */
  signal: AbortSignal;
  /** Epoch ms (Date.now()) by which the tool must have returned: the call's start plus `timeoutMs`. */
  deadline: number;
  /**
   * The whole time this call was given, in ms: the tool's own `timeoutMs` capped by limits.tool_timeout, the
   * upper bound on any one call. A tool's own default and the model's `timeout_ms` apply only below it.
   */
  timeoutMs: number;
  logger: Logger;
  principal: Principal;
  conversation: Conversation;
  runId: string;
}

export interface ToolDefinition<Input extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: Input;
  risk: Risk;
  /**
   * The most one call of this tool may take, in ms (what the model may ask for, at most); limits.tool_timeout
   * caps it, and is the limit when this is absent.
   */
  timeoutMs?: number;
  /** Minutes an approval for this tool stays valid; the policy default applies when absent. */
  approvalTtlMs?: number;
  /**
   * How many distinct approvers a call of this tool needs when it needs approval: 2 is the two-person rule, where
   * the requester never counts, even where self-approval is allowed. 1 when absent.
   */
  approvals?: 1 | 2;
  /**
   * Whether an approver may approve calls of this tool for a while (a grant) instead of once. True when absent,
   * except for a tool that needs two approvers: there it is false unless set.
   */
  grants?: boolean;
  /**
   * Wider matches an approver may pick when approving for a while, by name: `{ app: { service: ['api', 'worker'] } }`
   * lets a grant cover either service, every other argument as approved.
   */
  grantPatterns?: GrantPatterns;
  /** One line on what running it does, for the approver ("restarts the api; about 20 s of 502s"). */
  impact?: string;
  /**
   * Top-level parameters that carry a credential on purpose: shown as "‹secret, 24 chars›" on the card, in the
   * record and in the result, never as themselves. In any other parameter of a write or danger tool, text that
   * redaction would mask refuses the call, so the approver never approves a `[REDACTED]` they cannot read.
   */
  secretParameters?: readonly string[];
  /** The exact thing a call with these (already parsed) arguments will do, such as its command line. */
  describeCall?(input: Record<string, unknown>): string;
  /**
   * Whether the tool may be used now, for a tool whose source can withdraw it while the bot runs (an MCP tool
   * whose definition changed since it was trusted). Asked when tools are offered and again before a call runs;
   * `{ off }` leaves the tool out of what the model is offered and refuses a call (`refused_by_policy`) with that
   * text. Absent or undefined: available. Must be cheap and synchronous.
   */
  availability?(): ToolAvailability | undefined;
  execute(ctx: ToolContext, input: z.output<Input>): Promise<ToolResult>;
}

export type Tool = ToolDefinition<z.ZodType>;

/** Why a tool is switched off for now, in words for the model and the person: the refusal of its calls. */
export interface ToolAvailability {
  off: string;
}

/** The tool's refusal text when it is switched off now; undefined when it may be offered and called. */
export function toolOffReason(tool: Pick<Tool, 'availability'>): string | undefined {
  return tool.availability?.()?.off;
}

/** Whether the tool takes grants: as its definition says, else not under the two-person rule, else yes. */
export function takesGrants(tool: Pick<Tool, 'grants' | 'approvals'>): boolean {
  return tool.grants ?? tool.approvals !== 2;
}

export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/**
 * The names of tools opsbot does not name itself (an MCP server's `kube__pods_list`, `github__get-PR`): what
 * OpenAI-compatible APIs accept as a function name. Built-in and configured tools keep the narrower rule.
 */
export const EXTERNAL_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Checks a tool definition when it is defined, so a bad one fails at start-up, not on the first call. */
export function defineTool<Input extends z.ZodType>(definition: ToolDefinition<Input>): Tool {
  const where = `tool ${JSON.stringify(definition?.name)}`;
  if (typeof definition?.name !== 'string' || !TOOL_NAME_PATTERN.test(definition.name)) {
    throw new CallerError(
      ErrorCode.InvalidTool,
      `${where}: the name must match ${TOOL_NAME_PATTERN} (lowercase letters, digits and underscores, starting with a letter)`,
    );
  }
  return checkedTool(where, definition);
}

/** defineTool for a tool from outside opsbot, named as its source names it within EXTERNAL_TOOL_NAME_PATTERN. */
export function defineExternalTool<Input extends z.ZodType>(definition: ToolDefinition<Input>): Tool {
  const where = `tool ${JSON.stringify(definition?.name)}`;
  if (typeof definition?.name !== 'string' || !EXTERNAL_TOOL_NAME_PATTERN.test(definition.name)) {
    throw new CallerError(
      ErrorCode.InvalidTool,
      `${where}: the name must match ${EXTERNAL_TOOL_NAME_PATTERN} (letters, digits, _ and -, at most 64)`,
    );
  }
  return checkedTool(where, definition);
}

function checkedTool<Input extends z.ZodType>(where: string, definition: ToolDefinition<Input>): Tool {
  if (typeof definition.description !== 'string' || definition.description.trim().length < 10) {
    throw new CallerError(
      ErrorCode.InvalidTool,
      `${where}: a description of at least 10 characters is required`,
    );
  }
  if (!(definition.input instanceof z.ZodType)) {
    throw new CallerError(ErrorCode.InvalidTool, `${where}: input must be a zod schema`);
  }
  if (!RiskSchema.safeParse(definition.risk).success) {
    throw new CallerError(ErrorCode.InvalidTool, `${where}: risk must be one of read, write, danger`);
  }
  if (definition.approvals !== undefined && definition.approvals !== 1 && definition.approvals !== 2) {
    throw new CallerError(ErrorCode.InvalidTool, `${where}: approvals must be 1 or 2`);
  }
  if (definition.grants !== undefined && typeof definition.grants !== 'boolean') {
    throw new CallerError(ErrorCode.InvalidTool, `${where}: grants must be true or false`);
  }
  if (
    definition.grantPatterns !== undefined &&
    !GrantPatternsSchema.safeParse(definition.grantPatterns).success
  ) {
    throw new CallerError(
      ErrorCode.InvalidTool,
      `${where}: grantPatterns must map names to arguments, each with two or more values`,
    );
  }
  if (
    definition.impact !== undefined &&
    (typeof definition.impact !== 'string' || !/^[^\n]{1,200}$/.test(definition.impact.trim()))
  ) {
    throw new CallerError(
      ErrorCode.InvalidTool,
      `${where}: impact must be one line of at most 200 characters`,
    );
  }
  if (definition.describeCall !== undefined && typeof definition.describeCall !== 'function') {
    throw new CallerError(ErrorCode.InvalidTool, `${where}: describeCall(input) must be a function`);
  }
  if (definition.availability !== undefined && typeof definition.availability !== 'function') {
    throw new CallerError(ErrorCode.InvalidTool, `${where}: availability() must be a function`);
  }
  checkSecretParameters(where, definition);
  if (typeof definition.execute !== 'function') {
    throw new CallerError(ErrorCode.InvalidTool, `${where}: execute(ctx, input) is required`);
  }
  try {
    toolParametersSchema(definition.input);
  } catch (error) {
    throw new CallerError(ErrorCode.InvalidTool, `${where}: its input cannot be described as JSON Schema`, {
      cause: error,
    });
  }
  return Object.freeze({ ...definition }) as Tool;
}

/** Each secret parameter must be a declared string parameter of the input, or masking it would do nothing. */
function checkSecretParameters(where: string, definition: ToolDefinition): void {
  const secrets: unknown = definition.secretParameters;
  if (secrets === undefined) return;
  if (!Array.isArray(secrets) || secrets.some((name) => typeof name !== 'string')) {
    throw new CallerError(
      ErrorCode.InvalidTool,
      `${where}: secretParameters must be a list of parameter names`,
    );
  }
  let properties: Record<string, { type?: unknown }> = {};
  try {
    properties = (toolParametersSchema(definition.input).properties ?? {}) as typeof properties;
  } catch {
    return; // Said by the JSON Schema check below.
  }
  for (const name of secrets as string[]) {
    if (!Object.hasOwn(properties, name) || properties[name]?.type !== 'string') {
      throw new CallerError(
        ErrorCode.InvalidTool,
        `${where}: secretParameters names "${name}", which is not a string parameter of its input`,
      );
    }
  }
}

/** Each input schema's JSON Schema, made once: defineTool checks it, and every tool registry lists it. */
const parametersSchemas = new WeakMap<z.ZodType, Readonly<Record<string, unknown>>>();

/** The JSON Schema the model receives for a tool's input; one object per input schema, never to be changed. */
export function toolParametersSchema(input: z.ZodType): Record<string, unknown> {
  const known = parametersSchemas.get(input);
  if (known !== undefined) return known;
  const schema = z.toJSONSchema(input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  if (schema.type !== 'object') {
    throw new Error('a tool input must be a zod object');
  }
  parametersSchemas.set(input, schema);
  return schema;
}
