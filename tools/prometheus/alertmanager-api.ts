// Alertmanager's HTTP API (v2) for silences, as zod schemas, and one call that sorts its error answers.
import { z } from 'zod';
import { ToolArgumentError } from '../../agent/tool-errors.js';
import type { CallLimits } from '../call-limits.js';
import type { MonitoringClient, MonitoringRequest } from './monitoring-client.js';

export const Matcher = z.object({
  name: z.string(),
  value: z.string(),
  isRegex: z.boolean(),
  /** Absent from silences made before Alertmanager 0.22: those are all equality matchers. */
  isEqual: z.boolean().default(true),
});
export type Matcher = z.output<typeof Matcher>;

export const Silence = z.object({
  id: z.string(),
  status: z.object({ state: z.string() }),
  matchers: z.array(Matcher),
  startsAt: z.string(),
  endsAt: z.string(),
  updatedAt: z.string().optional(),
  createdBy: z.string(),
  comment: z.string(),
});
export type Silence = z.output<typeof Silence>;

export const SilenceList = z.array(Silence);
export const SilenceCreated = z.object({ silenceID: z.string() });

/** Alertmanager's errors: `{code, message}` from its validation, or a plain text line. */
const ErrorBody = z.object({ message: z.string() });

/**
 * Sends one request and returns the answer checked against `schema`. A 400 or 422 (a matcher Alertmanager will not
 * take) throws ToolArgumentError with Alertmanager's own words; anything else that is not a 200 throws an Error.
 */
export async function alertmanagerSend<Schema extends z.ZodType>(
  client: MonitoringClient,
  limits: CallLimits,
  request: MonitoringRequest,
  schema: Schema,
): Promise<z.output<Schema>> {
  const answer = await client.send(request, limits);
  if (answer.status === 400 || answer.status === 422) {
    const parsed = ErrorBody.safeParse(answer.json);
    throw new ToolArgumentError(
      `Alertmanager refused it: ${parsed.success ? parsed.data.message : answer.excerpt || `HTTP ${answer.status}`}`,
    );
  }
  if (answer.status !== 200) {
    throw new Error(
      `Alertmanager answered ${request.path} with HTTP ${answer.status}: ${answer.excerpt || 'no body'}`,
    );
  }
  return client.parse(schema, answer, request.path);
}

/** A matcher as Alertmanager and PromQL write it: name="value", name!="value", name=~"re", name!~"re". */
export function matcherText(matcher: Pick<Matcher, 'name' | 'value' | 'isRegex' | 'isEqual'>): string {
  const operator = `${matcher.isEqual ? '=' : '!'}${matcher.isRegex ? '~' : matcher.isEqual ? '' : '='}`;
  return `${matcher.name}${operator}${JSON.stringify(matcher.value)}`;
}
