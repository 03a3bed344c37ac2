// The store as a service: opened when the bot is composed, and closed last, once nothing else can write to it.
import { pingStore } from '../chat/store-reachability.js';
import type { Opsbot } from '../compose.js';
import type { Service } from './service.js';

export function storeService(opsbot: Pick<Opsbot, 'store' | 'closeStorage'>): Service {
  return {
    name: 'store',
    async start() {},
    // The kernel service has stopped the kernel by then: this stop is the storage's alone.
    stop: () => opsbot.closeStorage(),
    async readiness() {
      // Through pingStore: a store found down here is pinged again by the next Slack event, not trusted.
      await pingStore(opsbot.store);
      return { ok: true, detail: opsbot.store.description };
    },
  };
}
