// Prometheus's HTTP API (v1), as zod schemas, and one call that turns its error answers into the right failure.
import { z } from 'zod';
import { ToolArgumentError } from '../../agent/tool-errors.js';
import type { CallLimits } from '../call-limits.js';
import type { MonitoringClient } from './monitoring-client.js';

const Labels = z.record(z.string(), z.string());
/** [unix seconds, "value"]: the value is text, as Prometheus sends "NaN" and "+Inf" too. */
const Sample = z.tuple([z.number(), z.string()]);

export const QueryData = z.discriminatedUnion('resultType', [
  z.object({ resultType: z.literal('vector'), result: z.array(z.object({ metric: Labels, value: Sample })) }),
  z.object({
    resultType: z.literal('matrix'),
    result: z.array(z.object({ metric: Labels, values: z.array(Sample) })),
  }),
  z.object({ resultType: z.literal('scalar'), result: Sample }),
  z.object({ resultType: z.literal('string'), result: Sample }),
]);
export type QueryData = z.output<typeof QueryData>;

export const AlertsData = z.object({
  alerts: z.array(
    z.object({
      labels: Labels,
      annotations: Labels.default({}),
      state: z.string(),
      activeAt: z.string().optional(),
      value: z.string().optional(),
    }),
  ),
});

const Success = z.object({
  status: z.literal('success'),
  data: z.unknown(),
  warnings: z.array(z.string()).optional(),
});
const Failure = z.object({ status: z.literal('error'), errorType: z.string(), error: z.string() });

/** The error types that mean the request was wrong (a bad expression, an impossible range), not the server. */
const CALLER_ERROR_TYPES = new Set(['bad_data']);

/**
 * GETs one API path and returns its `data` checked against `schema`, with Prometheus's warnings. A bad expression
 * throws ToolArgumentError carrying Prometheus's own words, for the model to fix its query; a server fault throws
 * an Error.
 */
export async function prometheusGet<Schema extends z.ZodType>(
  client: MonitoringClient,
  limits: CallLimits,
  path: string,
  query: Record<string, string>,
  schema: Schema,
): Promise<{ data: z.output<Schema>; warnings: string[] }> {
  const answer = await client.send({ method: 'GET', path, query }, limits);
  const failure = Failure.safeParse(answer.json);
  if (failure.success) {
    const text = `Prometheus refused the query (${failure.data.errorType}): ${failure.data.error}`;
    if (CALLER_ERROR_TYPES.has(failure.data.errorType)) throw new ToolArgumentError(text);
    throw new Error(text);
  }
  if (answer.status !== 200) {
    throw new Error(`Prometheus answered ${path} with HTTP ${answer.status}: ${answer.excerpt || 'no body'}`);
  }
  const envelope = client.parse(Success, answer, path);
  const data = client.parse(schema, { ...answer, json: envelope.data }, path);
  return { data, warnings: envelope.warnings ?? [] };
}

/** A sample's value as a number: Prometheus writes infinities as +Inf and -Inf. */
export function sampleNumber(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}

/** A number for a JSON result: finite ones as they are, NaN and the infinities as Prometheus writes them. */
export function shownNumber(value: number): number | string {
  if (Number.isFinite(value)) return value;
  if (Number.isNaN(value)) return 'NaN';
  return value > 0 ? '+Inf' : '-Inf';
}

/** A series as PromQL writes it: `name{label="value",…}`, the name first, then the labels in order. */
export function seriesName(labels: Record<string, string>): string {
  const { __name__: name = '', ...rest } = labels;
  const pairs = Object.entries(rest)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  return pairs.length === 0 && name ? name : `${name}{${pairs.join(',')}}`;
}

export function isoTime(unixSeconds: number): string {
  return new Date(Math.round(unixSeconds * 1000)).toISOString();
}
