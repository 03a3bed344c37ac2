// Issue 12, finding 8: one browser id cannot hold more than a few live streams, and the total is bounded.
import { afterEach, describe, expect, it } from 'vitest';
import { EventStream } from '../playground/helpers/event-stream.js';
import {
  type PlaygroundRig,
  type PlaygroundRigOptions,
  startPlaygroundRig,
} from './helpers/playground-rig.js';

let rig: PlaygroundRig | undefined;
const streams: EventStream[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await rig?.stop();
  rig = undefined;
});

async function open(clientId: string): Promise<EventStream> {
  const stream = await EventStream.open(`${rig!.url}/api/events?client=${clientId}`);
  streams.push(stream);
  await stream.next((event) => event.event === 'ready');
  return stream;
}

async function start(options: PlaygroundRigOptions = {}): Promise<PlaygroundRig> {
  rig = await startPlaygroundRig(options);
  return rig;
}

describe('playground event streams', () => {
  it('attack: 20 streams opened with one browser id leave 5 open; the oldest are closed', async () => {
    const { events } = await start();
    const opened: EventStream[] = [];
    for (let index = 0; index < 20; index++) opened.push(await open('one-browser-id'));
    expect(events.connections).toBe(5);
    // The first fifteen were ended by the server; the newest five still get what is posted.
    await Promise.all(opened.slice(0, 15).map((stream) => stream.ended));
    const posted = await rig!.store.post({
      channelId: 'ops',
      author: { kind: 'bot', name: 'opsbot' },
      content: { kind: 'text', text: 'still live' },
    });
    for (const stream of opened.slice(15)) {
      await stream.next((event) => event.event === 'message' && event.data.id === posted.id);
    }
    // Another browser is not affected by this one's cap.
    await open('another-browser');
    expect(events.connections).toBe(6);
  });

  it('attack: streams past the overall cap are refused with 429, whatever browser ids they use', async () => {
    const { events } = await start({ streams: { maxStreams: 3 } });
    for (let index = 0; index < 3; index++) await open(`browser-${index}-id`);
    const refused = await fetch(`${rig!.url}/api/events?client=browser-4-id`);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: string }).error).toMatch(/3 live streams open, its limit/);
    expect(events.connections).toBe(3);
  });
});
