// The store-reset watch as a service: the epoch is adopted (or written) at start and read again on a timer.
import type { StoreResetWatch } from '../../agent/store-reset-watch.js';
import type { Service } from './service.js';

export function storeResetService(watch: StoreResetWatch): Service {
  return {
    name: 'store epoch',
    start: () => watch.start(),
    async stop() {
      watch.stop();
    },
  };
}
