// The `tools:` section of opsbot.yaml: allow-listed commands, executables, log roots and the network guard.
// The tool pack owns it, so it reads its own settings without importing bot/; the bot's schema embeds it.
import { z } from 'zod';
import { DurationSchema } from '../agent/policy/duration.js';
import { environmentEntryProblem } from './child-environment.js';
import { METADATA_RANGES } from './metadata-ranges.js';
import { networkEntryProblem } from './network-guard.js';
import { DEFAULT_OUTPUT_LIMIT_BYTES } from './run-command.js';

export const CommandParameterSchema = z.strictObject({
  type: z.enum(['string', 'integer', 'number', 'boolean']).default('string'),
  description: z.string().min(3),
  enum: z.array(z.union([z.string(), z.number()])).optional(),
  pattern: z.string().optional(),
  required: z.boolean().default(true),
  default: z.union([z.string(), z.number(), z.boolean()]).optional(),
  /** Allow values that start with "-"; off by default to stop option injection. */
  allow_leading_dash: z.boolean().default(false),
});

export const CommandSettingsSchema = z.strictObject({
  description: z.string().min(10),
  /** The program and its arguments; "{param}" inserts a parameter as one whole argument. */
  argv: z.array(z.string()).min(1),
  parameters: z.record(z.string(), CommandParameterSchema).default({}),
  risk: z.enum(['read', 'write', 'danger']).default('read'),
  timeout: DurationSchema.default(30_000).describe(
    'The time limit of one run of this command, and the most its `timeout_ms` may ask for. limits.tool_timeout caps it: a command runs for the smaller of the two.',
  ),
  cwd: z.string().optional(),
  approval_ttl: DurationSchema.optional(),
  /**
   * The child's environment beyond PATH, HOME, LANG, LC_*, TZ and USER: "NAME" passes opsbot's value
   * through, "NAME=value" sets one. Nothing else of opsbot's environment reaches the child.
   */
  env: z
    .array(
      z.string().superRefine((entry, ctx) => {
        const problem = environmentEntryProblem(entry);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    )
    .default([]),
});

function networkEntry(kind: 'allow' | 'deny') {
  return z.string().superRefine((entry, ctx) => {
    const problem = networkEntryProblem(entry, kind);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

export const ToolSettingsSchema = z
  .strictObject({
    /** Allow-listed commands, each exposed as a tool. */
    commands: z.record(z.string(), CommandSettingsSchema).default({}),
    /** Absolute paths of programs commands may run; each command's program must resolve to one of these. */
    allowed_executables: z.array(z.string()).default([]),
    /** Roots log_search may read under. */
    log_roots: z.array(z.string()).default(['/var/log']),
    /** Folder of user TypeScript/JavaScript modules exporting defineTool(...). */
    custom_tools_dir: z.string().optional(),
    output_limit_bytes: z.number().int().min(1024).default(DEFAULT_OUTPUT_LIMIT_BYTES),
    network: z
      .strictObject({
        /**
         * Hosts or CIDRs checks may reach; everything not denied when empty. An entry that overlaps a cloud
         * metadata range is an error: those ranges are refused whatever these lists say.
         */
        allow: z.array(networkEntry('allow')).default([]),
        /** Refused hosts and CIDRs, on top of the metadata ranges, which are always refused. */
        deny: z.array(networkEntry('deny')).default([...METADATA_RANGES]),
      })
      .prefault({}),
    /** DNS servers (host or host:port) for dns_lookup; the system's when empty. */
    dns_servers: z.array(z.string()).default([]),
  })
  .prefault({});

export type ToolSettings = z.output<typeof ToolSettingsSchema>;
export type CommandSettings = z.output<typeof CommandSettingsSchema>;
