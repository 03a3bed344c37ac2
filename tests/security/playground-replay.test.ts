// Issue 12, finding 7: replays of the playground's history must not stall the one HTTP server.
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_LIMIT } from '../../bot/playground/playground-recent-changes.js';
import { EventStream } from '../playground/helpers/event-stream.js';
import { type PlaygroundRig, startPlaygroundRig } from './helpers/playground-rig.js';

const CHANNELS = 10;
const MESSAGES_PER_CHANNEL = 400;
const TEXT = 'x'.repeat(4_000);
/** Slack acks within 3 s; the server that answers it must answer /healthz well inside that. */
const HEALTHZ_BOUND_MS = 1_000;

let rig: PlaygroundRig;
let seqs: number[];

beforeAll(async () => {
  rig = await startPlaygroundRig();
  seqs = [];
  rig.store.subscribe((change) => {
    seqs.push(change.type === 'message' ? change.message.seq : change.channel.seq);
  });
  for (let channel = 1; channel < CHANNELS; channel++) await rig.store.createChannel(`load-${channel}`);
  const channelIds = ['ops', ...Array.from({ length: CHANNELS - 1 }, (_, index) => `load-${index + 1}`)];
  for (let index = 0; index < MESSAGES_PER_CHANNEL; index++) {
    for (const channelId of channelIds) {
      await rig.store.post({
        channelId,
        author: { kind: 'user', userId: 'alice', displayName: 'Alice', roles: ['operator'] },
        content: { kind: 'user_text', text: `${index} ${TEXT}` },
      });
    }
  }
}, 60_000);

afterAll(async () => rig?.stop());

/** Asks /healthz every 25 ms until `work` settles; returns the slowest answer. */
async function slowestHealthz(work: Promise<unknown>): Promise<{ slowestMs: number; answers: number }> {
  let done = false;
  const finished = work.finally(() => {
    done = true;
  });
  let slowestMs = 0;
  let answers = 0;
  while (!done) {
    const asked = performance.now();
    const response = await fetch(`${rig.url}/healthz`);
    expect(response.status).toBe(200);
    await response.json();
    slowestMs = Math.max(slowestMs, performance.now() - asked);
    answers++;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await finished;
  return { slowestMs, answers };
}

/**
 * Reads a replay (until `ready`) or a history page the way an attacker would, without parsing it: the clients run
 * on the server's own event loop here, so they must cost next to nothing or they would be what stalls it.
 */
function countFrames(url: string, lastEventId?: string): Promise<{ replayed: boolean; messages: number }> {
  const marker = lastEventId === undefined ? '"kind":"user_text"' : 'event: message\n';
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = lastEventId === undefined ? {} : { 'last-event-id': lastEventId };
    const request = get(url, { headers }, (response) => {
      response.setEncoding('utf8');
      let messages = 0;
      let tail = '';
      response.on('data', (chunk: string) => {
        const text = tail + chunk;
        for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + marker.length))
          messages++;
        tail = text.slice(-marker.length + 1);
        const ready = /event: ready\ndata: (\{[^\n]*\})/.exec(text);
        if (ready) {
          response.destroy();
          resolve({ replayed: (JSON.parse(ready[1]!) as { replayed: boolean }).replayed, messages });
        }
      });
      response.on('end', () => resolve({ replayed: true, messages }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

describe('playground replays', () => {
  it(`attack: 30 concurrent full replays do not stall /healthz beyond ${HEALTHZ_BOUND_MS} ms`, async () => {
    // The largest replay the server still makes: everything in its window of recent changes.
    const oldestReplayable = String(seqs[seqs.length - REPLAY_LIMIT - 1]);
    const replays = Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        // Half ask for everything since the first event ever; half for the most the window replays.
        const since = index % 2 === 0 ? '1' : oldestReplayable;
        const replay = await countFrames(`${rig.url}/api/events?client=replay-${index}x`, since);
        if (replay.replayed) return replay.messages;
        // Told to reload, as the page does: the latest page of the channel, the largest one allowed.
        return (await countFrames(`${rig.url}/api/channels/load-3/messages?limit=500`)).messages;
      }),
    );
    const began = performance.now();
    const { slowestMs, answers } = await slowestHealthz(replays);
    const totalMs = performance.now() - began;
    const sizes = await replays;

    console.info(
      `30 replays over ${CHANNELS * MESSAGES_PER_CHANNEL} stored messages took ${Math.round(totalMs)} ms; ` +
        `/healthz answered ${answers} times, the slowest in ${Math.round(slowestMs)} ms`,
    );
    expect(slowestMs).toBeLessThan(HEALTHZ_BOUND_MS);
    // Every replay is bounded: a window's worth, or told to reload and given one page.
    expect(sizes.filter((_, index) => index % 2 === 1)).toEqual(Array(15).fill(REPLAY_LIMIT));
    expect(sizes.filter((_, index) => index % 2 === 0)).toEqual(Array(15).fill(MESSAGES_PER_CHANNEL));
  }, 60_000);

  it('attack: ?lastEventId=1 replays nothing; the browser is told to load the history page by page', async () => {
    const stream = await EventStream.open(`${rig.url}/api/events?client=replay-all&lastEventId=1`);
    const ready = await stream.next((event) => event.event === 'ready');
    stream.close();
    expect(ready.data).toEqual({ replayed: false });
    expect(stream.events.filter((event) => event.event === 'message')).toEqual([]);
    // A resume from inside the window gets exactly what it missed.
    const recent = String(seqs[seqs.length - 4]);
    const resumed = await EventStream.open(`${rig.url}/api/events?client=replay-few`, {
      'last-event-id': recent,
    });
    const resumedReady = await resumed.next((event) => event.event === 'ready');
    resumed.close();
    expect(resumedReady.data).toEqual({ replayed: true, changes: 3 });
  });
});
