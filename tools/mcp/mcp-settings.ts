// The `mcp:` section of opsbot.yaml: the Model Context Protocol servers whose tools opsbot offers, each over stdio
// (a program opsbot starts) or streamable HTTP (a URL), with which of its tools to take and at what risk.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { DurationSchema } from '../../agent/policy/duration.js';
import { RiskSchema } from '../../agent/tool.js';
import { ChildEnvironmentEntriesSchema } from '../child-environment-schema.js';
import { environmentHeadersSchema } from '../prometheus/endpoint-settings.js';

/** A server's name starts each of its tools' names (`kube__pods_list`), so it is held to what a tool name allows. */
export const MCP_SERVER_NAME = /^[a-z0-9_-]+$/;
/** Room for `__` and at least one character of a tool's own name within the 64 a tool name may have. */
export const MCP_SERVER_NAME_MAX = 61;

const ToolGlobs = z.array(z.string().min(1));

export const McpServerToolsSchema = z
  .strictObject({
    include: ToolGlobs.default(['*']).describe(
      "Globs over the tool's own name on its server (`search_*`, not `grafana__search_*`): only the tools that " +
        'match one are offered.',
    ),
    exclude: ToolGlobs.default([]).describe(
      "Globs over the tool's own name; a tool that matches one is not offered, even when `include` names it.",
    ),
    risk: z
      .record(z.string().min(1), RiskSchema)
      .default({})
      .describe(
        "The risk of tools by their own name (`query_prometheus: read`), which wins over the server's " +
          'annotations: without it `readOnlyHint: true` is `read`, `destructiveHint: true` is `danger`, and ' +
          'anything else `write`.',
      ),
  })
  .prefault({});

export const McpServerSettingsSchema = z
  .strictObject({
    command: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        'A stdio server: the program and its arguments, run without a shell, in a process group of its own. ' +
          'Exactly one of `command` and `url`.',
      ),
    url: z
      .string()
      .url()
      .regex(/^https?:\/\//i, 'an http:// or https:// URL')
      .optional()
      .describe(
        'A streamable HTTP server: its endpoint, such as https://grafana-mcp.internal/mcp; the network guard ' +
          '(tools.network) applies to its host as for http_check. Exactly one of `command` and `url`.',
      ),
    env: ChildEnvironmentEntriesSchema.describe(
      "For a `command` server, its environment beyond PATH, HOME, LANG, LC_*, TZ and USER: `NAME` passes opsbot's " +
        "value through, `NAME=value` sets one. Nothing else of opsbot's environment reaches it.",
    ),
    headers: environmentHeadersSchema('a `url` server', 'GRAFANA_MCP_TOKEN'),
    timeout: DurationSchema.default(30_000).describe(
      "The time limit of one call of the server's tools; limits.tool_timeout caps it.",
    ),
    trust_new_tools: z
      .boolean()
      .default(false)
      .describe(
        'Trust a tool that appears on this server after its first sight without an admin: off, a new tool is held ' +
          'back until `opsbot mcp trust`. A tool whose definition changed is held back either way.',
      ),
    tools: McpServerToolsSchema.describe("Which of the server's tools are offered, and their risk."),
  })
  .superRefine((server, ctx) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'a server needs exactly one of `command` (a program opsbot starts, over stdio) and `url` (streamable HTTP)',
      });
    }
    const program = server.command?.[0] ?? '';
    // Whether a relative path works would depend on opsbot's working directory.
    if (program.includes('/') && !isAbsolute(program)) {
      ctx.addIssue({
        code: 'custom',
        path: ['command', 0],
        message: `expected a program name or an absolute path, found the relative path ${JSON.stringify(program)}`,
      });
    }
    if (server.url !== undefined && server.env.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['env'],
        message: '`env` is the environment of a program opsbot starts; a `url` server runs elsewhere',
      });
    }
    if (server.command !== undefined && Object.keys(server.headers).length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['headers'],
        message: '`headers` are sent to a `url` server; a `command` server is spoken to over stdio',
      });
    }
  });

export const McpSettingsSchema = z
  .strictObject({
    servers: z
      .record(z.string(), McpServerSettingsSchema)
      // Checked on the record, not its keys: zod reports a bad key only as "Invalid key in record".
      .superRefine((servers, ctx) => {
        for (const name of Object.keys(servers)) {
          const problem = serverNameProblem(name);
          if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
        }
      })
      .default({})
      .describe(
        'MCP servers by name (lower case, digits, `_`, `-`); each of their tools becomes `<server>__<tool>`, ' +
          'under the same roles, approvals and limits as the built-in tools.',
      ),
  })
  .prefault({});

function serverNameProblem(name: string): string | undefined {
  if (!MCP_SERVER_NAME.test(name)) {
    return `a server's name starts its tools' names, so it must be lower-case letters, digits, _ or -; found ${JSON.stringify(name)}`;
  }
  if (name.length > MCP_SERVER_NAME_MAX) {
    return `a server's name may be at most ${MCP_SERVER_NAME_MAX} characters, to leave room for its tools' names within 64`;
  }
  return undefined;
}

export type McpSettings = z.output<typeof McpSettingsSchema>;
export type McpServerSettings = z.output<typeof McpServerSettingsSchema>;
export type McpServerToolSettings = z.output<typeof McpServerToolsSchema>;
