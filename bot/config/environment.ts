// Secrets and endpoints from the environment: validated once at start-up, each error naming its variable.
import { z } from 'zod';
import { maskUrlUserinfo } from '../../agent/url-userinfo.js';
import { checkEnvironmentConsistency } from './environment-checks.js';
import { InvalidSettingsError, type SettingsProblem } from './settings-problem.js';
import { GENERATE_TOKEN_HINT, TOKEN_MIN_LENGTH, tokenWeakness } from './token-strength.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

// The messages below read as the expectation: "PORT: expected a port number 0-65535, found ...".
const text = z.string();
const url = z.string().refine(isHttpUrl, 'an http:// or https:// URL');
const proxyUrl = z.string().refine(isHttpUrl, 'a proxy URL such as http://proxy.internal:3128');
/** A secret that guards something: long and random-looking (token-strength.ts), never echoed in the error. */
const randomToken = z.string().superRefine((value, context) => {
  const weakness = tokenWeakness(value);
  if (weakness === undefined) return;
  context.addIssue({
    code: 'custom',
    message: `a random token of at least ${TOKEN_MIN_LENGTH} characters, but ${weakness}; ${GENERATE_TOKEN_HINT}`,
  });
});

export const EnvironmentSchema = z.object({
  PORT: z
    .string()
    .regex(/^\d{1,5}$/, 'a port number 0-65535')
    .transform(Number)
    .refine((port) => port <= 65_535, 'a port number 0-65535')
    .default(3000)
    .describe(
      'The port of the one HTTP server: Slack events, `/healthz`, `/readyz`, the playground. 0 picks a free one.',
    ),
  HOST: text
    .default('127.0.0.1')
    .describe(
      'The address the server listens on: this machine only by default. Use `0.0.0.0` in a container or for ' +
        'Slack events over HTTP; then set `OPSBOT_PLAYGROUND_TOKEN` or turn the playground off.',
    ),
  OPSBOT_CONFIG: text
    .optional()
    .describe(
      'The settings file: `./opsbot.yaml` when unset (built-in read-only defaults without it). A path set here must exist.',
    ),
  OPSBOT_STORE_URL: z
    .string()
    .regex(/^(sqlite|redis|rediss):\/\/./, 'a store URL starting with sqlite://, redis:// or rediss://')
    .default('sqlite://./data/opsbot.sqlite')
    .describe(
      'Where runs, approvals, the audit log and patrol history are kept: `sqlite://…`, or `redis://…` / ' +
        '`rediss://…` for several processes sharing one state.',
    ),
  OPSBOT_DATA_DIR: text
    .default('./data')
    .describe(
      "This machine's copy of the traces of the runs it steps, one JSONL file per run (`<dir>/traces/<run>.jsonl`, to follow with `tail -f`; the store keeps every trace for `opsbot trace`), and its instance id.",
    ),
  OPSBOT_ROLE: z
    .enum(['all', 'gateway', 'worker'], { error: 'all, gateway or worker' })
    .default('all')
    .describe(
      'What this process does: `all` (everything), `gateway` (HTTP, Slack, Discord: takes events and enqueues ' +
        "runs, steps none) or `worker` (steps runs from the queue, runs patrols, posts through the platforms' Web " +
        'APIs). `gateway` and `worker` need a Redis store.',
    ),
  OPSBOT_PLAYGROUND: z
    .enum(['on', 'off'], { error: 'on or off' })
    .default('on')
    .describe(
      'The local web playground at `http://HOST:PORT/`; always off in the `gateway` and `worker` roles.',
    ),
  OPSBOT_PLAYGROUND_TOKEN: randomToken
    .optional()
    .describe(
      `The token the playground asks for: at least ${TOKEN_MIN_LENGTH} random characters (\`openssl rand -hex 32\`); ` +
        'a token with a pattern (one character or a short sequence repeated, a run such as abcdef) stops start-up. ' +
        'Optional on the loopback; required when `HOST` is reachable from elsewhere, since the playground lets its ' +
        'user act as any local identity. Also guards `/metrics` off the loopback.',
    ),
  OPSBOT_ALERTS_TOKEN: randomToken
    .optional()
    .describe(
      `Turns on \`POST /alerts/alertmanager\` (Alertmanager's webhook) and is the bearer token it requires: at least ${TOKEN_MIN_LENGTH} ` +
        "random characters (`openssl rand -hex 32`), refused when it has a pattern; Alertmanager sends it from its receiver's " +
        '`http_config.authorization.credentials`. Unset, the path answers 404. See [alerts.md](alerts.md).',
    ),
  OPSBOT_METRICS: z
    .enum(['on', 'off'], { error: 'on or off' })
    .default('off')
    .describe(
      "`on` serves `GET /metrics` in Prometheus' format on the same server; off the loopback it needs " +
        '`OPSBOT_PLAYGROUND_TOKEN` as a bearer token.',
    ),
  OPENAI_API_KEY: text
    .optional()
    .describe(
      'The model API key. Required by OpenAI and most hosted services; local servers usually take any value or ' +
        'none. With neither this nor `OPENAI_BASE_URL`, opsbot runs typed commands only.',
    ),
  OPENAI_BASE_URL: url
    .optional()
    .describe(
      "The OpenAI-compatible API's base URL, ending in `/v1` for most servers (Ollama, vLLM, LiteLLM); OpenAI's " +
        'own when unset. Give the final address: a redirect is not followed. A user and password in it ' +
        '(`https://user:password@host/v1`) are sent as `Authorization: Basic` (then leave `OPENAI_API_KEY` unset), ' +
        'and shown as `***@` wherever the URL is shown.',
    ),
  OPENAI_MODEL: text
    .default('gpt-4o-mini')
    .describe(
      'The model name, as the server knows it; it must support tool calling. Used only with `OPENAI_API_KEY` ' +
        'or `OPENAI_BASE_URL`.',
    ),
  OPENAI_SUMMARY_MODEL: text
    .optional()
    .describe(
      'A second, smaller model for the summaries (context compression, patrol results), on the same server ' +
        '(`OPENAI_BASE_URL`, `OPENAI_API_KEY`); the main model writes them when unset. Wins over `model.summary`.',
    ),
  https_proxy: proxyUrl.optional().describe('As `HTTPS_PROXY`; undici reads the lower-case name first.'),
  HTTPS_PROXY: proxyUrl
    .optional()
    .describe(
      'The HTTP proxy for calls to an https:// model (a CONNECT tunnel, so TLS runs end to end). ' +
        'Network tools never use it: their SSRF guard must see the address they connect to.',
    ),
  http_proxy: proxyUrl.optional().describe('As `HTTP_PROXY`; undici reads the lower-case name first.'),
  HTTP_PROXY: proxyUrl
    .optional()
    .describe(
      'The HTTP proxy for calls to an http:// model, and to an https:// one when `HTTPS_PROXY` is unset.',
    ),
  no_proxy: text.optional().describe('As `NO_PROXY`; undici reads the lower-case name first.'),
  NO_PROXY: text
    .optional()
    .describe(
      'Hosts the model is reached at directly, comma-separated: names, domains (`.internal`), `host:port` or `*`.',
    ),
  SLACK_BOT_TOKEN: text.optional().describe('The Slack bot token (`xoxb-…`); setting it turns Slack on.'),
  SLACK_SIGNING_SECRET: text.optional().describe('The Slack signing secret, for HTTP events.'),
  SLACK_APP_TOKEN: text
    .optional()
    .describe('A Slack app-level token (`xapp-…`, `connections:write`); setting it switches to Socket Mode.'),
  SLACK_API_URL: url
    .optional()
    .describe(
      'The Slack Web API base URL, for a proxy or a test double; `https://slack.com/api/` when unset.',
    ),
  SLACK_SLASH_COMMAND: z
    .string()
    .regex(/^\/[a-z0-9_-]+$/, 'a slash command such as /ops (lower case, starting with /)')
    .default('/ops')
    .describe('The slash command registered for the Slack app.'),
  DISCORD_TOKEN: text
    .optional()
    .describe('The Discord bot token, without "Bot "; setting it connects to Discord.'),
  DISCORD_APPLICATION_ID: z
    .string()
    .regex(/^\d+$/, 'the numeric application id from the Discord developer portal')
    .optional()
    .describe('The Discord application id, for `opsbot discord register`.'),
  DISCORD_API_URL: url
    .optional()
    .describe(
      'The Discord REST API base URL (and so of the gateway lookup), for a proxy or a test double; ' +
        '`https://discord.com/api` when unset.',
    ),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { error: `one of ${LOG_LEVELS.join(', ')}` })
    .default('info')
    .describe(
      'How much opsbot logs: JSON lines, or readable lines on a terminal; secrets are redacted either way.',
    ),
});

export type Environment = z.output<typeof EnvironmentSchema>;
export type EnvironmentVariable = keyof typeof EnvironmentSchema.shape;

/** Variables whose values must never be echoed back in an error message. */
const SECRET_VARIABLES: ReadonlySet<string> = new Set([
  'OPSBOT_PLAYGROUND_TOKEN',
  'OPSBOT_ALERTS_TOKEN',
  'OPENAI_API_KEY',
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'DISCORD_TOKEN',
]);

/**
 * Reads and checks the environment; throws one InvalidSettingsError listing every problem. Empty and
 * blank values count as unset, since `.env` templates leave unused variables as `NAME=`.
 */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const present = presentVariables(env);
  const result = EnvironmentSchema.safeParse(present);
  const problems: SettingsProblem[] = result.success
    ? []
    : result.error.issues.map((issue) => {
        const variable = String(issue.path[0] ?? '');
        return {
          key: variable,
          message: `expected ${issue.message}, found ${shown(variable, present[variable])}`,
        };
      });
  problems.push(...checkEnvironmentConsistency(present));
  if (problems.length > 0) throw new InvalidSettingsError('The environment', problems);
  return result.data as Environment;
}

/**
 * Settings that are valid but will not do what they seem to: said at start-up and by `opsbot config check`,
 * never silently ignored.
 */
export function environmentWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  const present = presentVariables(env);
  const warnings: string[] = [];
  if (present.OPENAI_MODEL !== undefined && !modelConfigured(present)) {
    warnings.push(
      `OPENAI_MODEL=${present.OPENAI_MODEL} is set, but neither OPENAI_BASE_URL nor OPENAI_API_KEY is, so no ` +
        'model is used and opsbot runs its command engine only. Set OPENAI_BASE_URL (Ollama, vLLM, LiteLLM) ' +
        'or OPENAI_API_KEY (OpenAI) to use the model.',
    );
  }
  return warnings;
}

function presentVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  const present: Record<string, string> = {};
  for (const variable of Object.keys(EnvironmentSchema.shape)) {
    const value = env[variable];
    if (value !== undefined && value.trim() !== '') present[variable] = value;
  }
  return present;
}

function shown(variable: string, value: string | undefined): string {
  if (value === undefined) return 'nothing';
  if (SECRET_VARIABLES.has(variable)) {
    return `a value of ${value.length} character${value.length === 1 ? '' : 's'} (not shown: it is secret)`;
  }
  // A URL may carry credentials in its user-info part, with or without a scheme (a proxy's often has none).
  return JSON.stringify(maskUrlUserinfo(value));
}

function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

/** A model is configured when there is a key (OpenAI) or a base URL (a local server may need no key). */
export function modelConfigured(
  environment: Pick<Environment, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL'>,
): boolean {
  return environment.OPENAI_API_KEY !== undefined || environment.OPENAI_BASE_URL !== undefined;
}

export function slackConfigured(environment: Pick<Environment, 'SLACK_BOT_TOKEN'>): boolean {
  return environment.SLACK_BOT_TOKEN !== undefined;
}

/** Socket Mode when an app-level token is set, HTTP events otherwise; undefined without Slack. */
export function slackMode(
  environment: Pick<Environment, 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN'>,
): 'socket' | 'http' | undefined {
  if (!slackConfigured(environment)) return undefined;
  return environment.SLACK_APP_TOKEN === undefined ? 'http' : 'socket';
}

export function discordConfigured(environment: Pick<Environment, 'DISCORD_TOKEN'>): boolean {
  return environment.DISCORD_TOKEN !== undefined;
}

/** The Alertmanager receiver is on only with its token. */
export function alertsEnabled(environment: Pick<Environment, 'OPSBOT_ALERTS_TOKEN'>): boolean {
  return environment.OPSBOT_ALERTS_TOKEN !== undefined;
}

export function metricsEnabled(environment: Pick<Environment, 'OPSBOT_METRICS'>): boolean {
  return environment.OPSBOT_METRICS === 'on';
}

/** The playground lives in one process: it is off in the `gateway` and `worker` roles. */
export function playgroundEnabled(
  environment: Pick<Environment, 'OPSBOT_PLAYGROUND' | 'OPSBOT_ROLE'>,
): boolean {
  return environment.OPSBOT_PLAYGROUND === 'on' && environment.OPSBOT_ROLE === 'all';
}
