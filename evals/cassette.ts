// A cassette: a live model's replies for one scenario, with what it was sent each time, recorded by
// `npm run eval -- --live --record` and replayed in scripted mode. The world's addresses are stored as
// placeholders, so a replay in a new world (new ports, new directories) sends the same calls.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { type ModelTurn, ModelTurnSchema, type Scenario } from './schema.js';
import { SentFingerprintSchema } from './sent-fingerprint.js';
import { unfillValue } from './template.js';

export const CASSETTES_DIR = fileURLToPath(new URL('./cassettes/', import.meta.url));

const CassetteTurnSchema = z.object({ sent: SentFingerprintSchema, reply: ModelTurnSchema }).strict();
export type CassetteTurn = z.infer<typeof CassetteTurnSchema>;

export const CassetteSchema = z
  .object({
    scenario: z.string(),
    /** The model that answered, as OPENAI_MODEL named it. */
    model: z.string(),
    recorded_at: z.string(),
    turns: z.array(CassetteTurnSchema),
  })
  .strict();
export type Cassette = z.infer<typeof CassetteSchema>;

export const scenarioKey = (scenario: Pick<Scenario, 'group' | 'name'>): string =>
  `${scenario.group}/${scenario.name}`;

export function cassettePath(dir: string, scenario: Pick<Scenario, 'group' | 'name'>): string {
  return join(dir, scenario.group, `${scenario.name}.yaml`);
}

/** The scenario's cassette, or undefined when none was recorded. A broken file is an error, not a skip. */
export function loadCassette(path: string): Cassette | undefined {
  if (!existsSync(path)) return undefined;
  const parsed = CassetteSchema.safeParse(parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path} is not a valid cassette:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export function saveCassette(path: string, cassette: Cassette): void {
  mkdirSync(dirname(path), { recursive: true });
  const header =
    `# Recorded from ${cassette.model} by \`npm run eval -- --live --record\`; replayed by \`npm run eval\`.\n` +
    '# Re-record it when a prompt or tool description changes; do not edit it by hand.\n';
  writeFileSync(path, header + stringify(cassette, { lineWidth: 0 }));
}

const CompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(z.object({ function: z.object({ name: z.string(), arguments: z.string() }) }))
            .nullish(),
        }),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish(),
});

function parsedArguments(raw: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : raw;
  } catch {
    return raw;
  }
}

/**
 * A live reply as a scenario model turn: an HTTP error as `error_status`, a completion as text or tool calls
 * with its real token usage, anything else as `malformed_body`. Arguments that are not a JSON object are kept as the raw text the model sent.
 */
export function turnFromReply(status: number, body: string, values: Record<string, string>): ModelTurn {
  if (status >= 400) return { error_status: Math.min(status, 599) };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { malformed_body: body };
  }
  const parsed = CompletionSchema.safeParse(json);
  if (!parsed.success) return { malformed_body: body };
  const { message } = parsed.data.choices[0]!;
  const usage = parsed.data.usage
    ? { usage: { prompt: parsed.data.usage.prompt_tokens, completion: parsed.data.usage.completion_tokens } }
    : {};
  const calls = message.tool_calls ?? [];
  if (calls.length === 0) return { text: unfillValue(message.content ?? '', values), ...usage };
  return {
    tool_calls: calls.map((call) => ({
      name: call.function.name,
      args: unfillValue(parsedArguments(call.function.arguments), values),
    })),
    ...(message.content ? { content: unfillValue(message.content, values) } : {}),
    ...usage,
  };
}
