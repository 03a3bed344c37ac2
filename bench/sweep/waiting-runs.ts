// The runs the sweep bench waits on: questions (waiting_for_user) in threads of their own, as a run record of
// the current schema would hold them.
import { RUN_SCHEMA_VERSION, type Run } from '../../agent/run.js';
import type { RunRepository } from '../../agent/run-repository.js';

/** A run waiting for an answer until `expiresAt`. */
export function waitingRun(id: string, expiresAt: number, now: number): Run {
  const call = { id: 'call_1', name: 'ask_user', rawArguments: '{}', args: {} };
  return {
    schemaVersion: RUN_SCHEMA_VERSION,
    id,
    engine: 'react',
    principal: { platform: 'slack', userId: 'U1', displayName: 'Alice', roles: ['operator'], groups: [] },
    conversation: { platform: 'slack', channelId: 'C1', threadId: id },
    task: 'check the api and ask me which region',
    createdAt: now,
    updatedAt: now,
    step: 1,
    usage: { promptTokens: 120, completionTokens: 30, modelCalls: 1, toolCalls: 0 },
    messages: [{ role: 'user', content: 'check the api and ask me which region' }],
    queue: [call],
    completedCalls: {},
    activeMs: 40,
    askAttempts: 1,
    failedActions: [],
    events: [{ type: 'task_received', at: now, step: 0, text: 'check the api', engine: 'react' }],
    status: 'waiting_for_user',
    question: {
      question: 'Which region?',
      choices: ['eu', 'us'],
      call,
      missingFields: [],
      askedAt: now,
      expiresAt,
      messageId: `m_${id}`,
    },
  };
}

/** Creates the runs through the repository, as the kernel would, `inFlight` at a time. */
export async function createWaiting(
  runs: RunRepository,
  ids: readonly string[],
  expiresAt: number,
  now: number,
  inFlight = 100,
): Promise<void> {
  for (let start = 0; start < ids.length; start += inFlight) {
    const chunk = ids.slice(start, start + inFlight);
    await Promise.all(chunk.map((id) => runs.create(waitingRun(id, expiresAt, now))));
  }
}

/** Saves the due runs waiting again, already past their expiry: new waits that came due since the last pass. */
export async function makeDueAgain(runs: RunRepository, ids: readonly string[], now: number): Promise<void> {
  for (const id of ids) await runs.save(waitingRun(id, now - 1, now));
}
