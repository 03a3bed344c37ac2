// Where the Redis Store keeps each kind of thing: every key under the store's prefix, one namespace per kind.

export class RedisKeys {
  constructor(private readonly prefix: string) {}

  /** Where keyv keeps a value: its namespace, its separator, the key. */
  value(key: string): string {
    return `${this.prefix}kv:${key}`;
  }

  claim(key: string): string {
    return `${this.prefix}claim:${key}`;
  }

  log(log: string): string {
    return `${this.prefix}log:${log}`;
  }

  set(set: string): string {
    return `${this.prefix}set:${set}`;
  }

  index(index: string): string {
    return `${this.prefix}index:${index}`;
  }
}
