// The order of a thread's replies: each run's messages together, under the message that started the run.

/**
 * A run's messages (they carry its `runId`) stay together, placed where the run began, so an answer that comes
 * after a second question was typed still sits under the first. A message the person asked wrote while the run
 * asked them something (between its question and the answer) belongs to that run; any other message of theirs starts
 * a place of its own, after the runs that had begun before it. Within a run, a status line sits where it last
 * changed, so "Done" closes the run's replies rather than heading them.
 *
 * @param {any[]} replies a thread's stored messages, any order
 * @returns {any[]} in reading order
 */
export function orderReplies(replies) {
  const runs = new Map();
  for (const message of replies) {
    const runId = runOf(message);
    if (!runId) continue;
    const run = runs.get(runId) ?? { start: message.createdAt, questions: [] };
    run.start = Math.min(run.start, message.createdAt);
    if (message.content.kind === 'question') run.questions.push(message);
    runs.set(runId, run);
  }
  const placed = replies.map((message) => ({ message, ...placeOf(message, runs) }));
  placed.sort((a, b) => a.group - b.group || a.at - b.at || a.message.seq - b.message.seq);
  return placed.map((entry) => entry.message);
}

/** Only the bot's own messages count as replies: its status line is an indicator, not an answer. */
export function isReply(message) {
  return message.content.kind !== 'status';
}

function runOf(message) {
  return message.author.kind === 'bot' && typeof message.content.runId === 'string'
    ? message.content.runId
    : undefined;
}

function placeOf(message, runs) {
  const runId = runOf(message);
  if (runId) {
    const at = message.content.kind === 'status' ? message.updatedAt : message.createdAt;
    return { group: runs.get(runId).start, at };
  }
  for (const run of runs.values()) {
    if (run.questions.some((question) => answers(message, question)))
      return { group: run.start, at: message.createdAt };
  }
  return { group: message.createdAt, at: message.createdAt };
}

/**
 * Written by the person asked while the question waited: from when it was asked until it was answered (or still
 * open). Anyone else's reply there is a request of its own, queued behind the run.
 */
function answers(message, question) {
  if (message.author.kind !== 'user' || message.createdAt < question.createdAt) return false;
  const asked = question.content.askedOf;
  const author = message.author.displayName;
  if (typeof asked === 'string' && typeof author === 'string' && author !== asked) return false;
  const answeredAt = question.content.answered?.at;
  return answeredAt === undefined || message.createdAt <= answeredAt;
}
