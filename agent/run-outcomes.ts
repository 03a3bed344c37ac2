// What a run's calls came to, from its own events rather than from the model's words: the facts its status line,
// its result card and `opsbot run`'s exit code are read from.

import type { RunBase } from './run.js';
import { stableJson } from './stable-json.js';

/** How a call ended, the last time the run made it (a later identical call that passed clears an earlier failure). */
export type CallOutcomeState = 'ok' | 'failed' | 'refused';

export interface CallOutcomeFact {
  tool: string;
  callId: string;
  state: CallOutcomeState;
  summary: string;
}

/**
 * Each distinct call of the run (tool and arguments) with how it ended the last time it was made, in the order the
 * calls were made last. A call the person's role or the channel's rules refused is `refused`; one that reported a
 * failure, timed out, or could not be made (its tool held back after repeated failures) is `failed`. A call the model got wrong (bad arguments, a tool that does not exist) is not a fact about the systems,
 * so it is left out: the model is told and tries again.
 */
export function callOutcomes(run: Pick<RunBase, 'events'>): CallOutcomeFact[] {
  const argsOf = new Map<string, string>();
  const latest = new Map<string, CallOutcomeFact>();
  for (const event of run.events) {
    if (event.type === 'tool_call') {
      argsOf.set(event.callId, `${event.tool} ${stableJson(event.args ?? null)}`);
      continue;
    }
    if (event.type !== 'tool_result') continue;
    if (event.errorClass === 'invalid_argument' || event.errorClass === 'refused_by_policy') continue;
    const signature = argsOf.get(event.callId) ?? `${event.tool} ${event.callId}`;
    // A result answered from the run's memory says nothing new: the call it repeats keeps its own words.
    if (event.repeated && latest.has(signature)) continue;
    const state: CallOutcomeState = event.ok
      ? 'ok'
      : event.errorClass === 'permission_denied'
        ? 'refused'
        : 'failed';
    // Deleted first, so that a call made again moves to where it was made last.
    latest.delete(signature);
    // A failure's summary starts with its class ("permission_denied: …"), which says nothing a person needs.
    const summary = event.errorClass ? event.summary.replace(`${event.errorClass}: `, '') : event.summary;
    latest.set(signature, { tool: event.tool, callId: event.callId, state, summary });
  }
  return [...latest.values()];
}

/** The calls whose last outcome was not a pass: what makes a finished run "done, with a problem". */
export function outcomeProblems(run: Pick<RunBase, 'events'>): CallOutcomeFact[] {
  return callOutcomes(run).filter((fact) => fact.state !== 'ok');
}

/** "Errors met:" and each failed call, for an answer that may not mention them. */
export function errorsMet(problems: CallOutcomeFact[]): string[] {
  const failed = problems.filter((fact) => fact.state === 'failed');
  if (failed.length === 0) return [];
  return [`Errors met:\n${failed.map((fact) => `- ${fact.tool}: ${fact.summary}`).join('\n')}`];
}
