// The alertmanager_silence tool (write): one new silence, for matchers, a duration and a comment; its approval card
// shows the exact matchers.
import { z } from 'zod';
import { parseDuration } from '../../agent/policy/duration.js';
import { defineTool, type Tool } from '../../agent/tool.js';
import { timeoutField } from '../call-limits.js';
import {
  matcherText as alertmanagerMatcherText,
  alertmanagerSend,
  SilenceCreated,
  SilenceList,
} from './alertmanager-api.js';
import { MAX_TIMEOUT_MS, monitoringCall } from './monitoring-call.js';
import type { MonitoringClient } from './monitoring-client.js';

const MAX_DURATION_MS = 7 * 86_400_000;

const matcherObject = z
  .object({
    name: z
      .string()
      .regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,127}$/, 'a label name')
      .describe('The label name, e.g. alertname.'),
    value: z.string().min(1).max(1024).describe('The value, or a regular expression with is_regex.'),
    is_regex: z.boolean().default(false).describe('Match the value as a regular expression (=~).'),
    is_equal: z.boolean().default(true).describe('false negates the match (!= or !~).'),
  })
  .strict();

const MATCHER_HINT = 'a matcher such as alertname="DiskFull" or instance=~"db-.*"';

/** `name="value"`, `name=~"regex"`, `name!="value"` or `name!~"regex"`; the quotes may be left out. */
const MATCHER_TEXT = /^([a-zA-Z_][a-zA-Z0-9_]{0,127})\s*(=~|!~|!=|=)\s*(?:"((?:[^"\\]|\\.)*)"|([^"]*))$/;

const matcherText = z
  .string()
  .max(1200)
  .transform((text, ctx) => {
    const match = MATCHER_TEXT.exec(text.trim());
    const value = match?.[3] !== undefined ? match[3].replace(/\\(.)/g, '$1') : match?.[4]?.trim();
    if (!match || !value) {
      ctx.addIssue({
        code: 'custom',
        message: 'a matcher such as alertname="DiskFull" or instance=~"db-.*"',
      });
      return z.NEVER;
    }
    const operator = match[2]!;
    return { name: match[1]!, value, is_regex: operator.endsWith('~'), is_equal: operator.startsWith('=') };
  });

// Text that is not a matcher is told what a matcher looks like, not zod's "Invalid input" for the union.
const matcher = z.union([matcherObject, matcherText], {
  error: (issue) => (typeof issue.input === 'string' ? MATCHER_HINT : undefined),
});

const input = z
  .object({
    matchers: z
      .array(matcher)
      .min(1)
      .max(20)
      .refine(
        (items) => items.some((item) => item.is_equal && !item.is_regex),
        'at least one matcher must be an exact name="value" match, so a silence cannot cover every alert by a pattern',
      )
      .describe(
        'Which alerts to silence: every matcher must match, e.g. [{name: "alertname", value: "DiskFull"}].',
      ),
    duration: z
      .string()
      .regex(/^[1-9]\d*(m|h|d)$/, 'a duration such as 30m, 1h, 4h or 2d')
      .refine((text) => parseDuration(text) <= MAX_DURATION_MS, 'at most 7d')
      .describe('How long the silence lasts from now, such as 1h or 4h (at most 7d).'),
    comment: z.string().trim().min(3).max(500).describe('Why, for the people who see the silence.'),
    timeout_ms: timeoutField(10_000, MAX_TIMEOUT_MS),
  })
  .strict();

const description = `Creates one silence in the configured Alertmanager: alerts matching every matcher stop notifying until the silence ends. A write: it runs only once approved, and the approver sees the exact matchers.
Result data: silence_id, matchers (as text), starts_at, ends_at, created_by, url, and already (true when an active silence with the same matchers already lasted as long: then no second one is made).
Use it when a person asks to silence an alert for a while (a known incident, planned work), with the narrowest matchers that cover it, usually alertname plus an instance or service.
Do not use it on your own initiative, to hide an alert nobody understands, for longer than needed, or when alertmanager_silences already shows one that covers it. A matcher must include at least one exact name="value".`;

type MatcherInput = z.output<typeof matcherObject>;

const alertmanagerMatcher = (item: MatcherInput) => ({
  name: item.name,
  value: item.value,
  isRegex: item.is_regex,
  isEqual: item.is_equal,
});

/** The same matchers in any order are the same silence. */
function matcherSet(texts: string[]): string {
  return [...texts].sort().join('\n');
}

function matchersText(items: MatcherInput[]): string {
  return items.map((item) => alertmanagerMatcherText(alertmanagerMatcher(item))).join(', ');
}

export function createAlertmanagerSilenceTool(options: {
  client: MonitoringClient;
  now?: () => number;
}): Tool {
  const { client } = options;
  const now = options.now ?? Date.now;
  return defineTool({
    name: 'alertmanager_silence',
    description,
    input,
    risk: 'write',
    timeoutMs: MAX_TIMEOUT_MS,
    impact: 'matching alerts stop notifying until the silence ends',
    describeCall: (args) => {
      const parsed = input.parse(args);
      return `silence ${matchersText(parsed.matchers)} for ${parsed.duration}: ${JSON.stringify(parsed.comment)}`;
    },
    execute: (ctx, args) =>
      monitoringCall('alertmanager_silence', client, ctx, args.timeout_ms, async (limits) => {
        const startsAt = new Date(now());
        const endsAt = new Date(startsAt.getTime() + parseDuration(args.duration));
        const createdBy = `opsbot for ${ctx.principal.displayName}`;
        const shown = matchersText(args.matchers);
        // The same silence asked twice (a second click, a model that asks again) is made once.
        const existing = await alertmanagerSend(
          client,
          limits,
          { method: 'GET', path: 'api/v2/silences' },
          SilenceList,
        );
        const wanted = matcherSet(
          args.matchers.map((item) => alertmanagerMatcherText(alertmanagerMatcher(item))),
        );
        const covering = existing.find(
          (silence) =>
            silence.status.state === 'active' &&
            Date.parse(silence.endsAt) >= endsAt.getTime() &&
            matcherSet(silence.matchers.map(alertmanagerMatcherText)) === wanted,
        );
        if (covering) {
          return {
            ok: true,
            summary: `Already silenced: ${shown} until ${covering.endsAt}, by ${covering.createdBy} (silence ${covering.id}); no second silence was made.`,
            data: {
              silence_id: covering.id,
              matchers: covering.matchers.map(alertmanagerMatcherText),
              starts_at: covering.startsAt,
              ends_at: covering.endsAt,
              created_by: covering.createdBy,
              url: client.urlOf(`#/silences/${encodeURIComponent(covering.id)}`),
              already: true,
            },
          };
        }
        const created = await alertmanagerSend(
          client,
          limits,
          {
            method: 'POST',
            path: 'api/v2/silences',
            body: {
              matchers: args.matchers.map(alertmanagerMatcher),
              startsAt: startsAt.toISOString(),
              endsAt: endsAt.toISOString(),
              createdBy,
              comment: args.comment,
            },
          },
          SilenceCreated,
        );
        return {
          ok: true,
          summary: `Silenced ${shown} until ${endsAt.toISOString()} (silence ${created.silenceID}).`,
          data: {
            silence_id: created.silenceID,
            matchers: args.matchers.map((item) => alertmanagerMatcherText(alertmanagerMatcher(item))),
            starts_at: startsAt.toISOString(),
            ends_at: endsAt.toISOString(),
            created_by: createdBy,
            url: client.urlOf(`#/silences/${encodeURIComponent(created.silenceID)}`),
            already: false,
          },
        };
      }),
  });
}
