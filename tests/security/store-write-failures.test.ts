// Attack: a full disk under the store. Dave's click got 202 and was dropped while the card stayed waiting and
// /readyz said 200. A refused write must reach the clicker in words, and /readyz must say writes fail.
import type { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreWriteError } from '../../agent/store/store-write-error.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { type ClockedPlayground, startClockedPlayground } from '../playground/helpers/clocked-playground.js';

let model: FakeOpenAIServer;
let playground: ClockedPlayground;

afterEach(async () => {
  await playground?.stop();
  await model?.close();
});

/** The real node:sqlite connection under the store: its page limit is a full disk without filling one. */
function databaseOf(playground: ClockedPlayground): DatabaseSync {
  return Reflect.get(playground.opsbot.store, 'db') as DatabaseSync;
}

/**
 * Caps the file at its size (SQLite's own page limit stands in for the disk), then fills what room is left in
 * every table through the store's own writes, in ever smaller ones, until each is refused with SQLITE_FULL.
 */
async function fillTheDisk(playground: ClockedPlayground): Promise<() => void> {
  const db = databaseOf(playground);
  const { page_count: pages } = db.prepare('PRAGMA page_count').get() as { page_count: number };
  db.exec(`PRAGMA max_page_count = ${pages}`);
  const store = playground.opsbot.store;
  const fills = [
    (pad: string, n: number) => store.set(`filler:${n}`, pad),
    (pad: string, n: number) => store.claim(`filler:${pad}${n}`, 'filler', 86_400_000),
    (pad: string) => store.append('filler', pad),
    (pad: string, n: number) => store.addToSet('filler', `${pad}${n}`),
    (pad: string, n: number) => store.addToIndex('filler', `${pad}${n}`, n),
  ];
  let n = 0;
  for (const fill of fills) {
    for (const size of [2048, 256, 32, 1]) {
      while (
        await fill('x'.repeat(size), n++).then(
          () => true,
          () => false,
        )
      );
    }
  }
  return () => db.exec('PRAGMA max_page_count = 1073741823');
}

async function readyz(url: string) {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as { checks: Record<string, unknown> } };
}

describe('a store that refuses writes', () => {
  it('attack: with the disk full, an approval click is dropped silently and /readyz stays 200', async () => {
    model = await startFakeOpenAIServer();
    playground = await startClockedPlayground(model);
    model.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    const posted = await playground.say('alice', '@opsbot restart the api');
    await playground.settled();
    const rootId: string = posted.body.message.id;
    const card = (await playground.messages()).find(
      (message) => message.threadId === rootId && message.content.kind === 'approval',
    );
    if (!card?.view || card.content.kind !== 'approval') throw new Error('no approval card');
    const runId = card.content.runId;
    expect((await readyz(playground.url)).status).toBe(200);

    const emptyTheDisk = await fillTheDisk(playground);
    const approve = card.view.buttons.find((button) => button.label === 'Approve')!;
    expect((await playground.press('bob', card.id, approve.id)).status).toBe(202);
    await playground.settled();
    const told = await playground.live.next(
      (event) => event.event === 'ephemeral' && /not recorded/.test(String(event.data.text)),
      3_000,
    );
    expect(told.data.text).toBe(
      'Your approval was not recorded: the store is failing (disk full); try again.',
    );
    expect((await playground.kernel.get(runId)).status).toBe('waiting_for_approval');
    const failing = await readyz(playground.url);
    expect(failing.status).toBe(503);
    expect(failing.body.checks.store_writes).toMatchObject({ ok: false });
    expect(JSON.stringify(failing.body.checks.store_writes)).toContain('disk full');

    // Room again: the probe write finds it, /readyz is ready, and the same click now approves.
    emptyTheDisk();
    expect((await readyz(playground.url)).status).toBe(200);
    model.reply(text('Restarted the api.'));
    await playground.press('bob', card.id, approve.id);
    await playground.settled();
    expect((await playground.kernel.get(runId)).events.map((event) => event.type)).toContain('executing');
  });

  it('attack: a refused SQLite write is a bare store error, with no reason a person could act on', async () => {
    model = await startFakeOpenAIServer();
    playground = await startClockedPlayground(model);
    await fillTheDisk(playground);
    const failure = await playground.opsbot.store.set('big', 'x'.repeat(64 * 1024)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StoreWriteError);
    expect((failure as StoreWriteError).reason).toBe('disk full');
    expect(playground.opsbot.storeWrites.failing?.reason).toBe('disk full');
  });
});
