// Store errors: the Store every part of the bot is given, with each failed operation counted. A Proxy, so the
// store keeps its class and any method beyond the Store interface; only the interface's operations are counted.
import type { Store } from '../../agent/store/store.js';
import type { OpsbotMetrics } from './opsbot-metrics.js';

/** The Store's operations; the label takes only these values. */
const OPERATIONS: ReadonlySet<string> = new Set<keyof Store>([
  'get',
  'set',
  'delete',
  'claim',
  'release',
  'holder',
  'append',
  'readLog',
  'addToSet',
  'removeFromSet',
  'members',
  'writeAll',
  'ping',
]);

export function meteredStore<S extends Store>(store: S, metrics: OpsbotMetrics): S {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof property !== 'string' || !OPERATIONS.has(property) || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (...args: unknown[]) => {
        try {
          return (value.apply(target, args) as Promise<unknown>).catch((error: unknown) => {
            metrics.storeFailed(property);
            throw error;
          });
        } catch (error) {
          metrics.storeFailed(property);
          throw error;
        }
      };
    },
  });
}
