// The value half of every Store: keyv over a backend adapter, with plain JSON and the Store's TTL rules.
import { Keyv, type KeyvStoreAdapter } from 'keyv';

/**
 * The text keyv stores for a value (with its own expiry, by keyv's clock), for a backend that writes it in a
 * transaction of its own; keyv reads it back like any value it wrote. `ttlMs` is already rounded up.
 */
export function keyvText(value: unknown, ttlMs: number | undefined, json?: string): string {
  if (json === undefined)
    return serialize({ value, expires: ttlMs === undefined ? undefined : Date.now() + ttlMs });
  // The same text, around JSON the caller already has.
  return ttlMs === undefined ? `{"value":${json}}` : `{"value":${json},"expires":${Date.now() + ttlMs}}`;
}

function serialize(data: unknown): string {
  return JSON.stringify(data);
}

export class KeyvValues {
  private readonly keyv: Keyv;

  constructor(adapter: KeyvStoreAdapter) {
    this.keyv = new Keyv(adapter, {
      useKeyPrefix: false,
      throwOnErrors: true,
      // keyv's default serializer is several times slower than JSON, and runs are saved on every step.
      serialize,
      deserialize: (text) => JSON.parse(text),
    });
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.keyv.get<T>(key);
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    // keyv reads a TTL of 0 as "forever"; the Store contract means "already gone".
    if (ttlMs !== undefined && ttlMs <= 0) {
      await this.keyv.delete(key);
      return;
    }
    await this.keyv.set(key, value, ttlMs === undefined ? undefined : Math.ceil(ttlMs));
  }

  delete(key: string): Promise<boolean> {
    return this.keyv.delete(key);
  }
}
