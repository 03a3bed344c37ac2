// Model latency and tokens: the model client the kernel is given, timed around each chat completion.
import type { Clock } from '../../agent/clock.js';
import type { ModelClient, ModelReply, ModelRequest } from '../../agent/model/model-port.js';
import type { OpsbotMetrics } from './opsbot-metrics.js';

export function meteredModelClient(inner: ModelClient, metrics: OpsbotMetrics, clock: Clock): ModelClient {
  return {
    get model() {
      return inner.model;
    },
    outage: () => inner.outage?.(),
    async complete(request: ModelRequest): Promise<ModelReply> {
      const began = clock.now();
      try {
        const reply = await inner.complete(request);
        metrics.modelAnswered('ok', clock.now() - began, {
          prompt: reply.usage.promptTokens,
          completion: reply.usage.completionTokens,
        });
        return reply;
      } catch (error) {
        metrics.modelAnswered('error', clock.now() - began);
        throw error;
      }
    },
  };
}
