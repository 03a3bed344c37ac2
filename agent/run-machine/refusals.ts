// A call the rules refused is the bot's own result card in the thread, naming the rule, so that the refusal is
// seen where the request was made and not only in the audit log, whatever the model says about it afterwards.
import type { PlannedCall, RunBase } from '../run.js';
import type { RunEffect } from '../run-effect.js';
import type { RecordedOutcome } from '../run-record-call.js';

/**
 * The card for a call refused by a person's roles or the channel's rules, posted once per tool and reason in a
 * run: a model that tries the same refused tool again is told again, but the thread hears it once. The command
 * engine's answer is the refusal already, and a patrol's report carries its own.
 */
export function refusalCard(
  before: RunBase,
  call: PlannedCall,
  outcome: RecordedOutcome,
): RunEffect | undefined {
  if (outcome.errorClass !== 'permission_denied' || before.engine !== 'react') return undefined;
  const told = before.events.some(
    (event) =>
      event.type === 'tool_result' &&
      event.tool === call.name &&
      event.errorClass === 'permission_denied' &&
      event.summary === outcome.summary,
  );
  if (told) return undefined;
  // The summary the model reads starts with the error's code; people read the reason.
  const reason = outcome.summary.replace(/^permission_denied: /, '');
  return {
    kind: 'post',
    message: {
      kind: 'result',
      runId: before.id,
      text: `${call.name} was refused, and did not run: ${reason}`,
      ok: false,
      refused: true,
      details: [{ tool: call.name, summary: `refused: ${reason}` }],
    },
  };
}
