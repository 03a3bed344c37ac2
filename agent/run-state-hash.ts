// The trace's stateHash: a short hash of what a run is after a step (its status and what it waits on, transcript,
// planned and completed calls, events, usage), so two traces of the same task show the step where they diverge.
// A run's messages, events and completed calls are never changed once made (as run-json.ts relies on too), so
// each is hashed once and its digest remembered: a trace hashes the run's small header and one digest per item.
import { createHash } from 'node:crypto';
import type { Run } from './run.js';
import { stableJson } from './stable-json.js';

const digests = new WeakMap<object, string>();

/** Over stableJson, so equal content gives equal digests whatever the key order (a run read back from the Store). */
function digest(item: object): string {
  let value = digests.get(item);
  if (value === undefined) {
    value = createHash('sha256').update(stableJson(item)).digest('base64');
    digests.set(item, value);
  }
  return value;
}

/**
 * 16 hex characters (64 bits) of sha256. Left out: the run's id (the trace record has it, and two runs of one
 * task differ in it), when it was last saved, and the ids of its chat messages (where it is shown, not what it is).
 */
export function runStateHash(run: Run): string {
  const { id, updatedAt, statusMessageId, statusShown, messages, events, completedCalls, ...state } =
    withoutChatIds(run);
  const hash = createHash('sha256').update(stableJson(state));
  hash.update(`\nmessages ${messages.length}\n`);
  for (const message of messages) hash.update(digest(message));
  hash.update(`\nevents ${events.length}\n`);
  for (const event of events) hash.update(digest(event));
  const signatures = Object.keys(completedCalls).sort();
  hash.update(`\ncompleted calls ${signatures.length}\n`);
  for (const signature of signatures)
    hash.update(`${JSON.stringify(signature)}${digest(completedCalls[signature]!)}`);
  return hash.digest('hex').slice(0, 16);
}

function withoutChatIds(run: Run): Run {
  if (run.status === 'waiting_for_user') {
    const { messageId, ...question } = run.question;
    return { ...run, question };
  }
  if (run.status === 'waiting_for_approval') {
    const { cardMessageId, ...approval } = run.approval;
    return { ...run, approval };
  }
  return run;
}
