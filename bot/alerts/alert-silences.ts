// A Silence click on an alert group's root: a run in the group's thread, as the clicker, whose one planned call is
// `alertmanager_silence` on the command engine. The policy gate and approvals decide it like any other call; a
// refusal the gate would give is told to the clicker at once, and no run starts for it. The run goes alongside the
// thread's active run (an investigation), and is linked to its group, so its end can show the silence on the root.
import type { Kernel } from '../../agent/kernel.js';
import type { Principal } from '../../agent/principal.js';
import type { PlannedCall } from '../../agent/run.js';
import { silenceable } from './alert-group-messages.js';
import type { AlertGroupRecord } from './alert-group-state.js';
import { threadOf } from './alert-investigations.js';
import type { SilenceRunLinks } from './alert-silence-links.js';

export const SILENCE_TOOL = 'alertmanager_silence';
const MAX_COMMENT_CHARS = 500;

export type SilenceStart = { kind: 'started'; runId: string } | { kind: 'refused'; reason: string };

/** The call a Silence click makes: the group's labels as exact matchers, the length, and who asked. */
export function silenceCall(record: AlertGroupRecord, principal: Principal, duration: string): PlannedCall {
  const matchers = Object.entries(record.groupLabels)
    .filter(([, value]) => value !== '')
    .map(([name, value]) => ({ name, value, is_regex: false, is_equal: true }));
  const group = groupText(record);
  const comment = `Silenced for ${duration} by ${principal.displayName || principal.userId} from opsbot's alert group ${group}`;
  const args = { matchers, duration, comment: comment.slice(0, MAX_COMMENT_CHARS) };
  return { id: 'silence_1', name: SILENCE_TOOL, args, rawArguments: JSON.stringify(args) };
}

export class AlertSilences {
  constructor(
    private readonly kernel: Pick<Kernel, 'start' | 'policy' | 'newRunId'>,
    private readonly links: SilenceRunLinks,
  ) {}

  async silence(record: AlertGroupRecord, principal: Principal, duration: string): Promise<SilenceStart> {
    if (!silenceable(record)) {
      return { kind: 'refused', reason: 'This alert group has no group labels to silence it by.' };
    }
    const conversation = threadOf(record);
    const decision = this.kernel.policy.decide(principal, conversation, SILENCE_TOOL);
    if (decision.outcome === 'deny') return { kind: 'refused', reason: decision.reason };
    const call = silenceCall(record, principal, duration);
    const runId = this.kernel.newRunId();
    await this.links.link(runId, { groupId: record.groupId, duration });
    await this.kernel.start({
      text: `${SILENCE_TOOL} for alert group ${groupText(record)}, ${duration} (the Silence button)`,
      principal,
      conversation,
      engine: 'command',
      plan: { calls: [call] },
      runId,
      // One call a person waits on: it does not wait for the investigation holding the thread.
      alongside: true,
    });
    return { kind: 'started', runId };
  }
}

function groupText(record: AlertGroupRecord): string {
  const labels = Object.entries(record.groupLabels).map(([name, value]) => `${name}=${value}`);
  return labels.length > 0 ? labels.join(', ') : record.groupId;
}
