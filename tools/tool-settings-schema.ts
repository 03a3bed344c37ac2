// The `tools:` section of opsbot.yaml: allow-listed commands, executables, log roots, the network guard, and
// the Prometheus and Alertmanager servers.
// The tool pack owns it, so it reads its own settings without importing bot/; the bot's schema embeds it.
import { z } from 'zod';
import { DurationSchema } from '../agent/policy/duration.js';
import { GrantPatternsSchema } from '../agent/policy/grant-patterns.js';
import { ChildEnvironmentEntriesSchema } from './child-environment-schema.js';
import { METADATA_RANGES } from './metadata-ranges.js';
import { networkEntryProblem } from './network-guard.js';
import { endpointSettingsSchema } from './prometheus/endpoint-settings.js';
import { DEFAULT_OUTPUT_LIMIT_BYTES } from './run-command.js';

export const CommandParameterSchema = z.strictObject({
  type: z
    .enum(['string', 'integer', 'number', 'boolean'])
    .default('string')
    .describe('The JSON type of the value, checked before the command runs.'),
  description: z
    .string()
    .min(3)
    .describe('What the value is, for the model and for the questions opsbot asks.'),
  enum: z
    .array(z.union([z.string(), z.number()]))
    .optional()
    .describe('The allowed values; the model and people are offered these.'),
  pattern: z
    .string()
    .optional()
    .describe(
      'A regular expression the WHOLE value must match; one that could backtrack catastrophically is refused.',
    ),
  required: z
    .boolean()
    .default(true)
    .describe(
      'Whether the value must be given; a missing optional value without a default drops its argument.',
    ),
  default: z
    .union([z.string(), z.number(), z.boolean()])
    .optional()
    .describe('The value when none is given; it makes the parameter optional and must obey the rules above.'),
  allow_leading_dash: z
    .boolean()
    .default(false)
    .describe('Allow values that start with `-`; off, such values are refused, to stop option injection.'),
  secret: z
    .boolean()
    .default(false)
    .describe(
      'The value is a credential on purpose (a string parameter): the approval card, the record and the ' +
        'result show it as "‹secret, 24 chars›", never as itself. Without it, a write or danger call whose ' +
        'value holds text that redaction would mask is refused, so an approver never approves what they cannot read.',
    ),
});

export const CommandSettingsSchema = z.strictObject({
  description: z
    .string()
    .min(10)
    .describe('For the model, like API docs: what the command does, when to use it, and when not to.'),
  argv: z
    .array(z.string())
    .min(1)
    .describe(
      'The program and its arguments, run without a shell; `"{param}"` inserts a parameter as exactly one whole ' +
        'argument. Every placeholder must be a parameter and every parameter used.',
    ),
  parameters: z
    .record(z.string(), CommandParameterSchema)
    .default({})
    .describe("The typed parameters, by name; they become the tool's input schema."),
  risk: z
    .enum(['read', 'write', 'danger'])
    .default('read')
    .describe(
      '`read` looks and changes nothing, `write` changes something recoverable, `danger` restarts or deletes.',
    ),
  timeout: DurationSchema.default(30_000).describe(
    'The time limit of one run of this command, and the most its `timeout_ms` may ask for. limits.tool_timeout caps it: a command runs for the smaller of the two.',
  ),
  cwd: z
    .string()
    .optional()
    .describe("The working directory, relative to opsbot's own; opsbot's when absent."),
  approval_ttl: DurationSchema.optional().describe(
    'How long an approval for this command stays open; `permissions.approval_ttl` when absent.',
  ),
  approvals: z
    .number()
    .int()
    .min(1)
    .max(2)
    .transform((count) => count as 1 | 2)
    .default(1)
    .describe(
      'How many distinct approvers a call needs when it needs approval. 2 is the two-person rule: the first ' +
        'approval is shown on the card and the call runs at the second, from someone else; the requester never ' +
        "counts, even where `permissions.allow_self_approval` is true. A role's `two_person` can ask for 2 for " +
        "its members' calls.",
    ),
  grants: z
    .boolean()
    .optional()
    .describe(
      'Whether an approver may approve this command for a while (`permissions.grant_durations`) instead of ' +
        'once. True when absent, except with `approvals: 2`, where it is false unless set. A call that a ' +
        "role's `two_person` names is never granted, whatever this says.",
    ),
  grant_patterns: GrantPatternsSchema.optional().describe(
    'Wider matches an approver may pick when approving this command for a while, by name: ' +
      '`app-services: { service: [api, worker] }` lets the grant cover the command for either service, every ' +
      'other argument as approved. A pattern is offered only for a call whose arguments it already holds.',
  ),
  impact: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[^\n]*$/, 'must be one line')
    .optional()
    .describe(
      'One line for the approver on what running it does, shown on its approval card beside the exact command: ' +
        '"restarts the api; about 20 s of 502s".',
    ),
  env: ChildEnvironmentEntriesSchema.describe(
    "The child's environment beyond PATH, HOME, LANG, LC_*, TZ and USER: `NAME` passes opsbot's value " +
      "through, `NAME=value` sets one. Nothing else of opsbot's environment reaches the child.",
  ),
});

function networkEntry(kind: 'allow' | 'deny') {
  return z.string().superRefine((entry, ctx) => {
    const problem = networkEntryProblem(entry, kind);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

export const ToolSettingsSchema = z
  .strictObject({
    commands: z
      .record(z.string(), CommandSettingsSchema)
      .default({})
      .describe('Allow-listed commands, each exposed as a tool of the same name (snake_case).'),
    allowed_executables: z
      .array(z.string())
      .default([])
      .describe(
        "Absolute paths of the programs commands may run; a command's program must resolve, symlinks " +
          'followed, to one of these.',
      ),
    log_roots: z
      .array(z.string())
      .default(['/var/log'])
      .describe(
        "Folders `log_search` may read under; relative ones are resolved against opsbot's working directory.",
      ),
    custom_tools_dir: z
      .string()
      .optional()
      .describe(
        'A folder of your own TypeScript or JavaScript modules exporting `defineTool(...)`, loaded at start-up.',
      ),
    output_limit_bytes: z
      .number()
      .int()
      .min(1024)
      .default(DEFAULT_OUTPUT_LIMIT_BYTES)
      .describe(
        "The most of a command's stdout, and of its stderr, that is kept (head and tail), before " +
          '`limits.tool_output_chars` applies.',
      ),
    network: z
      .strictObject({
        allow: z
          .array(networkEntry('allow'))
          .default([])
          .describe(
            'Host names, `*.domain`, IPs or CIDRs the network checks may reach; everything not denied when empty. ' +
              'An entry that overlaps a cloud metadata range stops start-up.',
          ),
        deny: z
          .array(networkEntry('deny'))
          .default([...METADATA_RANGES])
          .describe(
            'Refused hosts and CIDRs; deny wins over allow. The cloud metadata ranges are refused whatever this says.',
          ),
      })
      .prefault({})
      .describe(
        'Where `http_check`, `tcp_check`, `tls_certificate` and the Prometheus and Alertmanager tools may connect, ' +
          'checked after DNS resolution.',
      ),
    dns_servers: z
      .array(z.string())
      .default([])
      .describe("DNS servers for `dns_lookup`, as `host` or `host:port`; the system's resolvers when empty."),
    prometheus: endpointSettingsSchema('Prometheus', {
      url: 'http://prometheus:9090',
      variable: 'PROM_TOKEN',
    })
      .optional()
      .describe(
        'The Prometheus server that `prometheus_query`, `prometheus_range` and `prometheus_alerts` ask; those ' +
          'tools exist only when this is set.',
      ),
    alertmanager: endpointSettingsSchema('Alertmanager', {
      url: 'http://alertmanager:9093',
      variable: 'ALERTMANAGER_TOKEN',
    })
      .optional()
      .describe(
        'The Alertmanager that `alertmanager_silences` reads and `alertmanager_silence` (a write) adds to; those ' +
          'tools exist only when this is set.',
      ),
  })
  .prefault({});

export type ToolSettings = z.output<typeof ToolSettingsSchema>;
export type CommandSettings = z.output<typeof CommandSettingsSchema>;
