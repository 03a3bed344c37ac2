// Whether a model run is getting anywhere, read from its own events: a run that is stuck asks its requester how to
// go on, and a run at its last step, or told to stop, is asked for its best answer without tools.
import type { RunBase } from './run.js';
import { stableJson } from './stable-json.js';

/** Tool-call turns in a row that found nothing new before the run asks its requester how to go on. */
export const TURNS_WITHOUT_NEWS = 3;

/** The choices of the question a stuck run asks; a free answer is a new direction for the model. */
export const KEEP_GOING = 'keep going';
export const STOP_HERE = 'stop here';

/** Why a run's next turn must answer without tools. */
export type WrapUp = { reason: 'step_limit'; maxSteps: number } | { reason: 'requester'; by: string };

/** Errors that say the call was never made: nothing was learnt about the systems. */
const NOT_MADE = new Set(['permission_denied', 'refused_by_policy', 'invalid_argument']);

interface ToolTurn {
  step: number;
  /** The calls asked for, as tool and canonical arguments, in order. */
  calls: string[];
  /** True when at least one of its calls ran and brought a result not seen before. */
  news: boolean;
}

/**
 * The model's tool-call turns since the requester last answered (an answer is news, and resets the count), oldest
 * first. A call answered from the run's memory (a repeat, or the same failure again) or refused before it ran
 * found nothing new.
 */
function toolTurnsSinceLastAnswer(run: Pick<RunBase, 'events'>): ToolTurn[] {
  let turns: ToolTurn[] = [];
  const byStep = new Map<number, ToolTurn>();
  for (const event of run.events) {
    if (event.type === 'answer_received' || event.type === 'approval_decided') {
      turns = [];
      byStep.clear();
    } else if (event.type === 'model_turn' && event.toolCalls.length > 0) {
      const turn: ToolTurn = { step: event.step, calls: [], news: false };
      turns.push(turn);
      byStep.set(event.step, turn);
    } else if (event.type === 'tool_call') {
      byStep.get(event.step)?.calls.push(`${event.tool} ${stableJson(event.args ?? null)}`);
    } else if (event.type === 'tool_result') {
      const turn = byStep.get(event.step);
      if (turn && !event.repeated && !NOT_MADE.has(event.errorClass ?? '')) turn.news = true;
    }
  }
  return turns;
}

/**
 * Why the run is not getting anywhere, for the requester to read, or undefined while it is: the model asked for
 * the very calls of its previous turn and neither found anything new, or its last three tool-call turns found
 * nothing new.
 */
export function noProgress(run: Pick<RunBase, 'events'>): string | undefined {
  const turns = toolTurnsSinceLastAnswer(run);
  const [before, last] = turns.slice(-2);
  if (
    before &&
    last &&
    !before.news &&
    !last.news &&
    before.calls.length > 0 &&
    stableJson(before.calls) === stableJson(last.calls)
  ) {
    return `the model asked for the same ${last.calls.length === 1 ? 'call' : 'calls'} again (${toolNames(last)}), and ${last.calls.length === 1 ? 'it brings' : 'they bring'} nothing new`;
  }
  const recent = turns.slice(-TURNS_WITHOUT_NEWS);
  if (recent.length === TURNS_WITHOUT_NEWS && recent.every((turn) => !turn.news)) {
    return `the last ${TURNS_WITHOUT_NEWS} steps found nothing new (${[...new Set(recent.flatMap(toolNamesOf))].join(', ')})`;
  }
  return undefined;
}

function toolNamesOf(turn: ToolTurn): string[] {
  return turn.calls.map((call) => call.slice(0, call.indexOf(' ')));
}

function toolNames(turn: ToolTurn): string {
  return [...new Set(toolNamesOf(turn))].join(', ');
}

/** The question a stuck run asks its requester, naming why. */
export function stuckQuestion(reason: string): string {
  return `I'm not getting anywhere: ${reason}. Should I keep going, stop here with what I have, or try something else? Pick one, or reply with what to try instead.`;
}

/**
 * Whether the run's next turn is its last: the step limit allows one more, or the requester answered "stop here"
 * to the run's question about being stuck, and the model has not answered since.
 */
export function wrapUpFor(run: Pick<RunBase, 'events' | 'step'>, maxSteps: number): WrapUp | undefined {
  const { events } = run;
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.type === 'model_turn' || event.type === 'tool_result') break;
    if (event.type !== 'answer_received') continue;
    // The question answered is the stuck run's own when the stuck event came right before it was asked.
    const asked = events.slice(0, index).findLastIndex((earlier) => earlier.type === 'question_asked');
    if (asked > 0 && events[asked - 1]!.type === 'stuck' && event.answer.trim().toLowerCase() === STOP_HERE)
      return { reason: 'requester', by: event.by };
    break;
  }
  if (run.step + 1 >= maxSteps) return { reason: 'step_limit', maxSteps };
  return undefined;
}
