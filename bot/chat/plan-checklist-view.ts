// A plan's checklist as a neutral view: one item per step with its state, the model's reason and the tool's
// summary, under a heading that counts the steps done.
import type { PlanChecklistMessage } from '../../agent/chat-port.js';
import type { PlanStepState } from '../../agent/plan-progress.js';
import type { MessageView, ViewChecklistItem } from './message-view-types.js';
import { inert } from './neutralize-pings.js';
import { clip } from './split-text.js';
import type { ViewLimits } from './view-limits.js';

/** Each state in words, for platforms that show it as text and for the summary line. */
export const PLAN_STEP_WORDS: Record<PlanStepState, string> = {
  waiting: 'waiting',
  running: 'running',
  ok: 'done',
  failed: 'failed',
  refused: 'refused',
  skipped: 'skipped',
};

/** Each state as one character, for platforms that show plain text (Discord, the terminal). */
export const PLAN_STEP_ICONS: Record<PlanStepState, string> = {
  waiting: '⬜',
  running: '⏳',
  ok: '✅',
  failed: '❌',
  refused: '⛔',
  skipped: '⏭️',
};

/** Groups lines into chunks of at most `max` characters (a longer line is a chunk of its own, clipped). */
export function chunkLines(lines: readonly string[], max: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const line of lines) {
    const clipped = clip(line, max);
    if (current && current.length + 1 + clipped.length > max) {
      chunks.push(current);
      current = '';
    }
    current = current ? `${current}\n${clipped}` : clipped;
  }
  if (current) chunks.push(current);
  return chunks;
}

/** Past this many characters, a step's reason or summary is cut: the checklist is a glance, the results are above. */
const NOTE_CHARS = 200;

export function planChecklistView(message: PlanChecklistMessage, limits: ViewLimits): MessageView {
  const { steps } = message;
  const ended = steps.filter((step) => step.state !== 'waiting' && step.state !== 'running').length;
  const troubled = steps.some((step) => step.state === 'failed' || step.state === 'refused');
  const allDone = steps.every((step) => step.state === 'ok');
  const heading = message.round > 1 ? 'Plan, made again after a step failed' : 'Plan';
  const items = steps.map(
    (step): ViewChecklistItem => ({
      state: step.state,
      label: inert(clip(`${step.number}. ${step.tool}`, limits.headingChars)),
      ...(step.why ? { why: inert(clip(step.why, NOTE_CHARS)) } : {}),
      ...(step.summary ? { note: inert(clip(step.summary, NOTE_CHARS)) } : {}),
    }),
  );
  return {
    kind: 'plan',
    tone: troubled ? 'warning' : allDone ? 'success' : 'working',
    summary: inert(clip(`${heading}: ${ended} of ${steps.length} steps ended`, 300)),
    heading: inert(clip(`${heading} (${ended} of ${steps.length} steps ended)`, limits.headingChars)),
    blocks: [{ type: 'checklist', items }],
    buttons: [],
    // No run id: the run's status message carries it, once.
  };
}
