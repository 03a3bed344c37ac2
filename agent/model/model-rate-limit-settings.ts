// How fast this process may call the model (`model.rate_limit`): a token bucket and a cap on calls at once.
import { z } from 'zod';

export const ModelRateLimitSettingsSchema = z
  .strictObject({
    requests_per_second: z
      .number({ error: 'expected a number of requests per second, such as 10' })
      .min(0.1, 'expected at least 0.1 requests per second (one every 10 s)')
      .max(10_000, 'expected at most 10000 requests per second')
      .default(10)
      .describe(
        'Model requests this process sends per second, on average. A 429 from the server halves it (and a ' +
          '`Retry-After` holds every request until then); each answered request then wins back a tenth of it.',
      ),
    burst: z
      .number({ error: 'expected a whole number of requests, such as 20' })
      .int('expected a whole number of requests, such as 20')
      .min(1, 'expected at least 1 request')
      .max(10_000, 'expected at most 10000 requests')
      .default(20)
      .describe('Requests that may go at once after a quiet spell, above the rate (the size of the bucket).'),
    max_in_flight: z
      .number({ error: 'expected a whole number of requests, such as 32' })
      .int('expected a whole number of requests, such as 32')
      .min(1, 'expected at least 1 request')
      .max(10_000, 'expected at most 10000 requests')
      .default(32)
      .describe(
        'Model requests this process has open at once; more wait their turn, and the run says so. The default ' +
          'matches `limits.worker_concurrency`; lower it for a local server that answers few at once (Ollama).',
      ),
  })
  .prefault({});

export type ModelRateLimitSettings = z.output<typeof ModelRateLimitSettingsSchema>;
