// The post ledger (issue 15): what it costs in Store calls per run, that a Store which cannot read or write
// post records never stops a post, and that post keys come out the same when a run is stepped again.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatPort } from '../../agent/chat-port.js';
import { ErrorCode, SystemError } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { messageHash, PostLedger, postKey } from '../../agent/post-ledger.js';
import type { Run } from '../../agent/run.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import type { Store } from '../../agent/store/store.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, runTask } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The store with every call counted as "method key-kind" (the key up to its first colon). */
function counting(store: Store, counts: Map<string, number>): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const key = typeof args[0] === 'string' ? args[0].split(':')[0] : 'batch';
        const name = `${String(property)} ${key}`;
        counts.set(name, (counts.get(name) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
}

/** The store with reads and writes of post records failing, as a Store outage would make them. */
function failingPosts(store: Store): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'get' && property !== 'set') return value;
      return (key: string, ...rest: unknown[]) => {
        if (key.startsWith('post:')) return Promise.reject(new Error('store unavailable'));
        return (value as (...args: unknown[]) => Promise<unknown>).apply(target, [key, ...rest]);
      };
    },
  });
}

function warnings(): { logger: Logger; messages: string[] } {
  const messages: string[] = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn(_fields, message) {
      messages.push(message ?? '');
    },
    error(_fields, message) {
      messages.push(`error: ${message ?? ''}`);
    },
    child: () => logger,
  };
  return { logger, messages };
}

describe('the post ledger', () => {
  it('costs one Store read and one write per post: two of each for a run with a tool call and an answer', async () => {
    harness = await createHarness({ store: 'sqlite' });
    const counts = new Map<string, number>();
    const kernel = harness.newKernel({ store: counting(harness.store, counts) });
    harness.fake.reply(
      toolCalls([{ name: 'check_http', arguments: { url: 'https://a.example' } }]),
      text('a is up.'),
    );
    const run = await runTask(kernel, { text: 'is a up?', principal: alice, conversation });
    expect(run.status).toBe('finished');
    // Posted: the status line (then updated through its saved id, no record needed) and the answer.
    expect(harness.chat.posts.map((post) => post.message.kind)).toEqual(['status', 'result']);
    expect(counts.get('get post')).toBe(2);
    expect(counts.get('set post')).toBe(2);
  });

  it.each(['memory', 'sqlite'] as const)(
    'posts anyway when the %s Store cannot read or write post records, and logs it',
    async (store) => {
      harness = await createHarness({ store });
      const { logger, messages } = warnings();
      const kernel = harness.newKernel({ store: failingPosts(harness.store), logger });
      harness.fake.reply(text('prod is fine.'));
      const run = await runTask(kernel, { text: 'is prod fine?', principal: alice, conversation });
      expect(run.status).toBe('finished');
      expect(harness.chat.ofKind('result').map((message) => message.text)).toEqual(['prod is fine.']);
      expect(harness.chat.ofKind('status')).toHaveLength(1);
      expect(messages).toContain('could not read whether a message was posted already; posting it');
      expect(messages).toContain(
        'could not record a posted message; a run stepped again after a crash may post it twice',
      );
      expect(messages.filter((message) => message.startsWith('error'))).toEqual([]);
    },
  );

  it('waits for an unreachable store to record a post, so that the run stepped again does not post twice', async () => {
    const store = new MemoryStore();
    const set = store.set.bind(store);
    let outages = 3;
    store.set = async (key, value, ttlMs) => {
      if (key.startsWith('post:') && outages-- > 0)
        throw new SystemError(
          ErrorCode.StoreUnavailable,
          'Redis store could not write: the client is offline',
        );
      return set(key, value, ttlMs);
    };
    const { logger, messages } = warnings();
    const waits: number[] = [];
    const ledger = new PostLedger(store, logger, undefined, undefined, async (ms) => {
      waits.push(ms);
    });
    const posted: string[] = [];
    const chat: ChatPort = {
      async post(target, message) {
        posted.push(message.kind);
        return { conversation: target, messageId: `m${posted.length}` };
      },
      async update() {},
    };
    const answer = { kind: 'result', runId: 'run_1', text: 'up', ok: true } as const;
    await ledger.post(chat, 'run_1', conversation, 'end:0', answer);
    await ledger.post(chat, 'run_1', conversation, 'end:0', answer);
    expect(posted).toEqual(['result']);
    expect(waits).toEqual([100, 200, 400]);
    expect(messages).toEqual([
      'the store is unreachable; waiting for it to record a posted message, so that it is not posted twice',
    ]);
  });

  it('gives up recording after 30 s of waiting for the store, saying a repeat is possible', async () => {
    const store = new MemoryStore();
    store.set = async () => {
      throw new SystemError(ErrorCode.StoreUnavailable, 'Redis store could not write: the client is offline');
    };
    const { logger, messages } = warnings();
    let waited = 0;
    const ledger = new PostLedger(store, logger, undefined, undefined, async (ms) => {
      waited += ms;
    });
    const chat: ChatPort = {
      async post(target) {
        return { conversation: target, messageId: 'm1' };
      },
      async update() {},
    };
    await ledger.post(chat, 'run_1', conversation, 'end:0', {
      kind: 'result',
      runId: 'run_1',
      text: 'up',
      ok: true,
    });
    expect(waited).toBeGreaterThanOrEqual(30_000);
    expect(waited).toBeLessThan(31_000);
    expect(messages.at(-1)).toBe(
      'could not record a posted message; a run stepped again after a crash may post it twice',
    );
  });

  it('keys a post by the run as its transition left it, and the end of a run by the end alone', () => {
    const run = {
      id: 'run_1',
      status: 'running',
      step: 2,
      events: [{ type: 'task_received' }, { type: 'model_turn' }],
    } as unknown as Run;
    expect(postKey(run, 0)).toBe('2:2:0');
    expect(postKey({ ...run }, 0)).toBe(postKey(run, 0));
    expect(postKey({ ...run, events: [...run.events, run.events[1]!] } as Run, 0)).not.toBe(postKey(run, 0));
    expect(postKey({ ...run, status: 'finished', step: 5 } as Run, 0)).toBe('end:0');
    const answer = { kind: 'result', runId: 'run_1', text: 'up', ok: true } as const;
    expect(messageHash({ ...answer })).toBe(messageHash(answer));
    expect(messageHash({ ...answer, text: 'down' })).not.toBe(messageHash(answer));
  });
});
