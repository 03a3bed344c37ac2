// Issue 12, finding 11: a huge answer is not stored or streamed whole by the playground.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlaygroundChatPort } from '../../bot/playground/playground-chat-port.js';
import { MESSAGE_TEXT_LIMIT_BYTES } from '../../bot/playground/playground-message-cap.js';
import { EventStream } from '../playground/helpers/event-stream.js';
import { type PlaygroundRig, startPlaygroundRig } from './helpers/playground-rig.js';

const THREE_MB = 'answer line\n'.repeat(262_144);
const NOTE = '… output cut at 64 KB; `opsbot show run_big` prints the full text.';

let rig: PlaygroundRig;
beforeAll(async () => {
  rig = await startPlaygroundRig();
});
afterAll(async () => rig?.stop());

describe('playground message size', () => {
  it('attack: a 3 MB model answer is stored and streamed cut at 64 KB, saying where the whole of it is', async () => {
    const live = await EventStream.open(`${rig.url}/api/events?client=cap-watcher`);
    await live.next((event) => event.event === 'ready');
    const port = new PlaygroundChatPort(rig.store, 'opsbot');
    const ref = await port.post(
      { platform: 'playground', channelId: 'ops' },
      { kind: 'result', runId: 'run_big', text: THREE_MB, ok: true },
    );

    const stored = await rig.store.message(ref.messageId);
    const text = (stored!.content as { text: string }).text;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MESSAGE_TEXT_LIMIT_BYTES + 200);
    expect(text.startsWith(THREE_MB.slice(0, 60_000))).toBe(true);
    expect(text.endsWith(NOTE)).toBe(true);

    const streamed = await live.next((event) => event.event === 'message' && event.data.id === ref.messageId);
    // The page gets the text twice, in the message and in its rendered view, with each line break escaped.
    const bound = 2 * 1.2 * MESSAGE_TEXT_LIMIT_BYTES;
    expect(JSON.stringify(streamed.data).length).toBeLessThan(bound);
    const page = await (await fetch(`${rig.url}/api/channels/ops/messages`)).text();
    expect(page.length).toBeLessThan(bound);
    live.close();
  });

  it('attack: an update cannot grow a message past the cap either, nor can huge result details', async () => {
    const port = new PlaygroundChatPort(rig.store, 'opsbot');
    const conversation = { platform: 'playground' as const, channelId: 'ops' };
    const ref = await port.post(conversation, {
      kind: 'status',
      runId: 'run_big',
      text: 'working',
      tone: 'working',
    });
    await port.update(ref, {
      kind: 'result',
      runId: 'run_big',
      text: 'done',
      ok: true,
      details: [{ tool: 'read_log', summary: '2 MB of log', data: { lines: THREE_MB.slice(0, 2_000_000) } }],
    });
    const stored = (await rig.store.message(ref.messageId))!;
    expect(JSON.stringify(stored).length).toBeLessThan(4 * 1024);
    expect(stored.content).toMatchObject({
      text: 'done',
      details: [{ tool: 'read_log', summary: `2 MB of log (${NOTE})` }],
    });
    // A text with no run (nothing else keeps it) says only that it was cut.
    const plain = await port.post(conversation, { kind: 'text', text: 'é'.repeat(40_000) });
    const plainText = ((await rig.store.message(plain.messageId))!.content as { text: string }).text;
    expect(plainText.endsWith('é\n\n… output cut at 64 KB.')).toBe(true);
    expect(Buffer.byteLength(plainText)).toBeLessThanOrEqual(MESSAGE_TEXT_LIMIT_BYTES + 40);
  });
});
