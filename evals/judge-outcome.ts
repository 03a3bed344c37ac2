// Judges the kernel's outcome facts: how each call ended, whether the run was ok, stuck or wrapped up, and the
// exit code `opsbot run` gives it; read from the run's events, as the status line reads them.
import { callOutcomes } from '../agent/run-outcomes.js';
import { exitCodeOf } from '../bot/cli/run-task.js';
import type { ScenarioOutcome } from './outcome.js';
import type { Expect } from './schema.js';

export function outcomeProblems(expect: Expect, outcome: ScenarioOutcome): string[] {
  const wanted = expect.outcome;
  if (!wanted) return [];
  const { run } = outcome;
  const problems: string[] = [];
  const facts = callOutcomes(run);
  const toolsIn = (state: 'ok' | 'failed' | 'refused') =>
    [...new Set(facts.filter((fact) => fact.state === state).map((fact) => fact.tool))].sort();
  const compare = (label: string, expected: string[] | undefined, got: string[]) => {
    if (expected === undefined) return;
    const sorted = [...new Set(expected)].sort();
    if (sorted.join(',') !== got.join(','))
      problems.push(`${label}: [${got.join(', ')}], expected [${sorted.join(', ')}]`);
  };
  compare('calls that passed', wanted.passed, toolsIn('ok'));
  compare('calls that failed', wanted.failed, toolsIn('failed'));
  compare('calls refused', wanted.refused, toolsIn('refused'));
  if (wanted.ok !== undefined) {
    const ok = run.status === 'finished' && run.ok !== false;
    if (ok !== wanted.ok)
      problems.push(
        `the run was ${ok ? 'ok' : `not ok (${run.status})`}, expected ${wanted.ok ? 'ok' : 'not ok'}`,
      );
  }
  if (wanted.exit_code !== undefined && exitCodeOf(run) !== wanted.exit_code)
    problems.push(`opsbot run would exit ${exitCodeOf(run)}, expected ${wanted.exit_code}`);
  if (wanted.refusal_shown !== undefined) {
    const refused = toolsIn('refused');
    const shown = refused.every((tool) =>
      outcome.chatMessages.some((message) => message.includes(`${tool} was refused, and did not run`)),
    );
    if (refused.length === 0 && wanted.refusal_shown)
      problems.push('no call was refused, so none could be shown');
    else if (shown !== wanted.refusal_shown)
      problems.push(`the refusal was ${shown ? '' : 'not '}shown in the chat as its own card`);
  }
  if (wanted.stuck !== undefined) {
    const stuck = run.events.some((event) => event.type === 'stuck');
    if (stuck !== wanted.stuck) problems.push(`the run was ${stuck ? '' : 'not '}found stuck`);
  }
  if (wanted.wrap_up !== undefined) {
    const finished = run.events.findLast((event) => event.type === 'finished');
    const got = finished?.type === 'finished' ? (finished.wrapUp ?? 'none') : 'no answer';
    if (got !== wanted.wrap_up) problems.push(`the answer's wrap-up was ${got}, expected ${wanted.wrap_up}`);
  }
  if (wanted.repeats !== undefined) {
    const repeats = run.events.filter((event) => event.type === 'tool_result' && event.repeated).length;
    if (repeats !== wanted.repeats)
      problems.push(`${repeats} calls were answered from memory, expected ${wanted.repeats}`);
  }
  return problems;
}
