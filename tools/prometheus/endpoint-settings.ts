// The `tools.prometheus` and `tools.alertmanager` settings: where the server is, and headers from the environment.
import { z } from 'zod';

/** `${NAME}`: an environment variable a header value takes its text from. */
export const ENVIRONMENT_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `${NAME}` written out, for messages: the settings' own syntax, not a template literal. */
const REFERENCE = (name: string) => `$\{${name}}`;

/** Headers the client sets itself: one from the settings could misroute or smuggle the request. */
const RESERVED_HEADERS = [
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
];

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'a header name');

const headerValue = z
  .string()
  .regex(/^[^\r\n\0]*$/, 'one line of text')
  .refine(
    (value) => new RegExp(ENVIRONMENT_REFERENCE.source).test(value),
    `a header value must take its secret from the environment, as ${REFERENCE('NAME')} (e.g. "Bearer ` +
      `${REFERENCE('PROM_TOKEN')}"): credentials are not written in the settings file`,
  );

/**
 * Headers sent with every request to `target`, each value taking its secret from the environment as ${NAME}; the
 * MCP servers' settings use the same rule.
 */
export function environmentHeadersSchema(target: string, variable: string) {
  return (
    z
      .record(headerName, headerValue)
      // Checked on the record, not its keys: zod reports a bad key only as "Invalid key in record".
      .superRefine((headers, ctx) => {
        for (const name of Object.keys(headers)) {
          if (!RESERVED_HEADERS.includes(name.toLowerCase())) continue;
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: `the client sets these headers itself: ${RESERVED_HEADERS.join(', ')}`,
          });
        }
      })
      .default({})
      .describe(
        `Headers sent with every request to ${target}, each value naming environment variables as ` +
          `${REFERENCE('NAME')} (\`Authorization: "Bearer ${REFERENCE(variable)}"\`); start-up fails when ` +
          'one is not set. The values are redacted from every result.',
      )
  );
}

export function endpointSettingsSchema(
  server: 'Prometheus' | 'Alertmanager',
  example: { url: string; variable: string },
) {
  return z.strictObject({
    url: z
      .string()
      .url()
      .regex(/^https?:\/\//i, 'an http:// or https:// URL')
      .describe(
        `${server}'s base URL, such as ${example.url}; the network guard (tools.network) applies to its host ` +
          'exactly as for http_check.',
      ),
    headers: environmentHeadersSchema(server, example.variable),
  });
}

export type EndpointSettings = z.output<ReturnType<typeof endpointSettingsSchema>>;
