// /readyz's store_writes check: fails from a refused write (a full disk, Redis out of memory) until writes work.
import { storeKeys } from '../../agent/store/store-keys.js';
import type { Opsbot } from '../compose.js';
import type { Service } from './service.js';

export function storeWritesService(opsbot: Pick<Opsbot, 'store' | 'storeWrites' | 'instanceId'>): Service {
  return {
    name: 'store_writes',
    async start() {},
    async stop() {},
    readiness: () => opsbot.storeWrites.check(opsbot.store, storeKeys.writeProbe(opsbot.instanceId)),
  };
}
