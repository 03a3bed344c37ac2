// A call made again in the same run, with the same tool and arguments, is not run again: a read that passed is
// answered with its earlier result, and one that failed with that failure (a loop guard).
import type { CallOutcome } from './call-outcome.js';
import type { Run } from './run.js';

export type EarlierCall = Run['completedCalls'][string];

/** Why a call that failed before is not run again, in the words the model and the thread read. */
export function repeatedFailureMessage(tool: string, earlier: EarlierCall): string {
  const summary = (earlier.summary ?? 'see its result above').replace(/\.+$/, '');
  return (
    `${tool} with these arguments failed the same way at step ${earlier.step ?? '?'}: ${summary}. ` +
    'It was not run again: try another way, or answer with what you know.'
  );
}

/** The earlier result again, marked as a repeat, with how old it is when that is known. */
export function repeatedResult(earlier: EarlierCall, now: number): CallOutcome {
  return {
    content: JSON.stringify({
      repeat_of: earlier.callId,
      note: 'Same tool and arguments as an earlier call in this run; here is its result again, without running the tool a second time.',
      ...(earlier.at === undefined
        ? {}
        : { age_seconds: Math.max(0, Math.round((now - earlier.at) / 1000)) }),
      result: safeParseJson(earlier.content),
    }),
    ok: true,
    summary: `repeat of ${earlier.callId}: not run again`,
    repeated: true,
    durationMs: 0,
    executed: false,
  };
}

function safeParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
