// What a run transition causes, as data: saves, messages, traces, audit entries and hand-offs to the queue.
import type { MessageTone, OutboundMessage } from './chat-port.js';
import type { AuditEntryInput } from './policy/audit-log.js';
import type { TraceRecord } from './trace.js';

/** Which field of the run remembers a posted message, so it can be updated later. */
export type MessageSlot = 'question' | 'approval_card' | 'plan_checklist';

export type RunAuditEntry = Omit<AuditEntryInput, 'runId' | 'conversation' | 'actor'> & {
  /** Defaults to the run's requester. */
  actor?: AuditEntryInput['actor'];
};

export type RunEffect =
  /** Persist the run now. A transition lists it where the order matters (before an action runs). */
  | { kind: 'save' }
  | { kind: 'post'; message: OutboundMessage; slot?: MessageSlot }
  | { kind: 'update'; messageId: string; message: OutboundMessage }
  /** Shows or updates the run's one status line. */
  | { kind: 'status'; text: string; tone: MessageTone }
  | { kind: 'trace'; record: Omit<TraceRecord, 'at' | 'runId' | 'step' | 'stateHash'> }
  | { kind: 'audit'; entry: RunAuditEntry }
  /** The run no longer needs its thread: the thread's next task may start. */
  | { kind: 'free_thread' }
  /** Hand the run to the RunQueue: a worker will advance it. */
  | { kind: 'enqueue' }
  /** The stored cancel request has been acted on. */
  | { kind: 'forget_cancel_request' };
