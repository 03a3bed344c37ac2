// The model as a /readyz part: whether the server answers and has the model, from the cached probe.
import type { CachedModelProbe } from '../../agent/model/model-probe.js';
import type { Service } from './service.js';

export function modelService(probe: CachedModelProbe): Service {
  return {
    name: 'model',
    async start() {
      // Warm the cache, so the first /readyz and the first playground page already know.
      void probe.check();
    },
    async stop() {},
    async readiness() {
      const health = await probe.check();
      return {
        ok: health.state === 'ready' || health.state === 'unlisted',
        detail: `${health.state}: ${health.detail}`,
        advisory: true,
      };
    },
  };
}
