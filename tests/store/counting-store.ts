// A Store that records every call (method and arguments) before passing it on, so a test can show which reads
// and writes a piece of code makes.
import type { Store } from '../../agent/store/store.js';

export interface StoreCall {
  method: string;
  args: unknown[];
}

export function countingStore(store: Store, calls: StoreCall[]): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push({ method: String(property), args });
        return value.apply(target, args);
      };
    },
  });
}

/** The run ids whose records were read (`get` of `run:<id>`). */
export function runRecordsRead(calls: readonly StoreCall[]): Set<string> {
  const read = new Set<string>();
  for (const call of calls) {
    const key = call.args[0];
    if (call.method === 'get' && typeof key === 'string' && key.startsWith('run:')) read.add(key.slice(4));
  }
  return read;
}
