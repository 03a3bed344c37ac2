// Replays the storm against one receiver as Alertmanager sent it: each notification at its captured time, and a
// group's next one only after the receiver answered the last (Alertmanager flushes a group one notification at a
// time). Each is timed from sending to the end of the answer, on keep-alive connections.
import { Agent, request } from 'node:http';
import type { StormNotification } from './alert-storm.js';

export interface ReplayResult {
  latenciesMs: number[];
  /** HTTP status → count. */
  statuses: Record<string, number>;
  /** The receiver's `outcome` field (opsbot) → count. */
  outcomes: Record<string, number>;
  /** From the first notification sent to the last answer. */
  wallMs: number;
}

export async function replayStorm(
  url: string,
  token: string,
  notifications: readonly StormNotification[],
): Promise<ReplayResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const byGroup = new Map<string, StormNotification[]>();
  for (const n of notifications) byGroup.set(n.groupKey, [...(byGroup.get(n.groupKey) ?? []), n]);
  const result: ReplayResult = { latenciesMs: [], statuses: {}, outcomes: {}, wallMs: 0 };
  const start = performance.now();
  try {
    await Promise.all(
      [...byGroup.values()].map(async (sequence) => {
        for (const notification of sequence) {
          const wait = start + notification.atMs - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          const sent = performance.now();
          const answer = await post(agent, url, token, notification.body);
          result.latenciesMs.push(performance.now() - sent);
          result.statuses[answer.status] = (result.statuses[answer.status] ?? 0) + 1;
          const outcome = outcomeOf(answer.body);
          if (outcome) result.outcomes[outcome] = (result.outcomes[outcome] ?? 0) + 1;
        }
      }),
    );
    result.wallMs = performance.now() - start;
    return result;
  } finally {
    agent.destroy();
  }
}

function post(
  agent: Agent,
  url: string,
  token: string,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: `Bearer ${token}`,
          'user-agent': 'Alertmanager/0.25.0',
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function outcomeOf(body: string): string | undefined {
  try {
    const value = JSON.parse(body) as { outcome?: unknown };
    return typeof value.outcome === 'string' ? value.outcome : undefined;
  } catch {
    return undefined;
  }
}
