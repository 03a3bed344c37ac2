// A run that is not getting anywhere asks its requester how to go on, instead of spending its steps in silence:
// the kernel makes the ask_user call on the run's behalf, so the answer reaches the model as any answer does.
import { ASK_USER } from '../builtin-tools.js';
import type { PlannedCall, RunIn } from '../run.js';
import { KEEP_GOING, STOP_HERE, stuckQuestion } from '../run-progress.js';
import type { Next, RunMachineEvent } from './events.js';
import { askQuestion } from './questions.js';
import { withEvent } from './shape.js';

export function stuckAsked(run: RunIn<'running'>, event: Extract<RunMachineEvent, { type: 'stuck' }>): Next {
  const question = stuckQuestion(event.reason);
  const choices = [KEEP_GOING, STOP_HERE];
  const args = { question, choices };
  const rawArguments = JSON.stringify(args);
  const call: PlannedCall = { id: event.callId, name: ASK_USER, rawArguments, args };
  // The call is the run's next step, in the transcript as the model's own turn, so that the answer that follows
  // is a tool result the model's API accepts.
  const step = run.step + 1;
  const asking = withEvent(
    {
      ...run,
      step,
      queue: [call],
      messages: [
        ...run.messages,
        {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: call.id, name: ASK_USER, arguments: rawArguments }],
        },
      ],
    },
    { type: 'stuck', at: event.at, step, reason: event.reason },
  );
  const asked = askQuestion(asking, call, {
    at: event.at,
    question,
    choices,
    missingFields: [],
    expiresAt: event.expiresAt,
  });
  return {
    run: asked.run,
    effects: [
      { kind: 'trace', record: { kind: 'stuck', summary: event.reason.slice(0, 200), durationMs: 0 } },
      ...asked.effects,
    ],
  };
}
