// A Redis Store batch (writeAll): each write serialized first, then queued in one MULTI, which Redis runs together.
import { keyvText } from './keyv-values.js';
import type { RedisClient } from './redis-client.js';
import type { RedisKeys } from './redis-keys.js';
import { releaseScript } from './redis-scripts.js';
import type { StoreWrite } from './store.js';

/** One write of a batch, serialized now, queued in the batch's MULTI later. */
export function queuedWrite(write: StoreWrite, keys: RedisKeys): (multi: RedisMulti) => void {
  switch (write.kind) {
    case 'set': {
      const key = keys.value(write.key);
      const ttlMs = write.ttlMs === undefined ? undefined : Math.ceil(write.ttlMs);
      // As KeyvValues.set: a TTL of zero or less means already gone.
      if (ttlMs !== undefined && ttlMs <= 0) return (multi) => multi.del(key);
      const text = keyvText(write.value, ttlMs, write.json);
      return (multi) => (ttlMs === undefined ? multi.set(key, text) : multi.set(key, text, { PX: ttlMs }));
    }
    case 'delete': {
      const key = keys.value(write.key);
      return (multi) => multi.del(key);
    }
    case 'append': {
      const key = keys.log(write.log);
      const json = JSON.stringify(write.record) ?? 'null';
      return (multi) => multi.rPush(key, json);
    }
    case 'deleteLog': {
      const key = keys.log(write.log);
      return (multi) => multi.del(key);
    }
    case 'addToSet':
      return (multi) => multi.sAdd(keys.set(write.set), write.member);
    case 'removeFromSet':
      return (multi) => multi.sRem(keys.set(write.set), write.member);
    case 'addToIndex':
      return (multi) => multi.zAdd(keys.index(write.index), { score: write.at, value: write.member });
    case 'removeFromIndex':
      return (multi) => multi.zRem(keys.index(write.index), write.member);
    case 'release': {
      const options = { keys: [keys.claim(write.key)], arguments: [write.owner] };
      // EVAL, not EVALSHA: inside a MULTI a forgotten script cannot be sent again.
      return (multi) => multi.eval(releaseScript, options);
    }
  }
}

type RedisMulti = ReturnType<RedisClient['multi']>;

/** The first command of a batch that Redis refused (node-redis's MultiErrorReply lists them), or the error itself. */
export function firstFailure(error: unknown): unknown {
  const replies = (error ?? {}) as { replies?: unknown[]; errorIndexes?: number[] };
  const index = replies.errorIndexes?.[0];
  return index === undefined ? error : (replies.replies?.[index] ?? error);
}
