// The load side of the ack bench: signed `app_mention` events sent on a fixed schedule (open loop), each timed
// from the moment it was due to the moment its HTTP answer was complete.
import { FAKE_BOT } from '../../tests/fakes/slack/fake-slack-api.js';
import { eventCallback } from '../../tests/fakes/slack/slack-payload-builders.js';
import { slackSignature } from '../../tests/fakes/slack/slack-signing.js';

export interface AckWindow {
  events: number;
  p50: number;
  p99: number;
  max: number;
  /** Events not answered 200. */
  errors: number;
  /** The server's CPU over the window per event, when `cpu` was given (0 otherwise). */
  cpuMsPerEvent: number;
  /** The Web API calls the server made meanwhile (warm-up included), by method; filled in by run-ack.ts. */
  webApiCalls?: Record<string, number>;
}

/** Who sends the events, and where: 50 people over 20 channels. */
export const ACK_USERS = Array.from({ length: 50 }, (_, i) => `UACK${i}`);
export const ACK_CHANNELS = Array.from({ length: 20 }, (_, i) => `CACK${i}`);
/** Every event sent by this process, so message ts and event ids never repeat across windows. */
let sent = 0;

export async function sendEvents(options: {
  url: string;
  secret: string;
  rate: number;
  seconds: number;
  /** Makes event ids and message ts unique across windows. */
  prefix: string;
  /** The server's CPU so far, in ms. */
  cpu?: () => number;
}): Promise<AckWindow> {
  const total = Math.round(options.rate * options.seconds);
  const intervalMs = 1000 / options.rate;
  const latencies: number[] = [];
  let errors = 0;
  const cpuBefore = options.cpu?.() ?? 0;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const dueAt = started + i * intervalMs;
    const wait = dueAt - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(
      send(options, i).then(
        (ok) => {
          // Timed from when it was due, so a late send (a busy sender) counts against nobody's figure unfairly.
          latencies.push(performance.now() - dueAt);
          if (!ok) errors += 1;
        },
        () => {
          errors += 1;
        },
      ),
    );
  }
  await Promise.all(inFlight);
  const cpuMs = options.cpu ? options.cpu() - cpuBefore : 0;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    events: total,
    p50: at(0.5),
    p99: at(0.99),
    max: latencies.at(-1) ?? NaN,
    errors,
    cpuMsPerEvent: cpuMs / total,
  };
}

async function send(options: { url: string; secret: string; prefix: string }, i: number): Promise<boolean> {
  const seconds = Math.floor(Date.now() / 1000);
  sent += 1;
  const ts = `${seconds}.${String(sent).padStart(6, '0')}`;
  const body = JSON.stringify(
    eventCallback(
      {
        type: 'app_mention',
        user: ACK_USERS[i % ACK_USERS.length],
        text: `<@${FAKE_BOT.userId}> system_stats`,
        ts,
        channel: ACK_CHANNELS[i % ACK_CHANNELS.length],
      },
      `Ev${options.prefix}${i}`,
      Date.now(),
    ),
  );
  const response = await fetch(options.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': String(seconds),
      'x-slack-signature': slackSignature(options.secret, seconds, body),
    },
    body,
  });
  await response.arrayBuffer();
  return response.status === 200;
}
