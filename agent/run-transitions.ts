// The changes a run goes through — a recorded call, a question, the end in each of its forms — each saved,
// announced in the thread, traced and audited the same way wherever it happens.

import type { Clock } from './clock.js';
import { errorMessage } from './errors.js';
import type { KernelLimits } from './kernel-options.js';
import type { Logger } from './logger.js';
import { type AuditEntryInput, type AuditLog, auditActor } from './policy/audit-log.js';
import type { Redactor } from './redaction.js';
import type { PlannedCall, Run } from './run.js';
import type { RunNotifier } from './run-notifier.js';
import type { RunRepository } from './run-repository.js';
import { type CallOutcome, callSignature } from './step-executor.js';
import type { Store } from './store/store.js';
import { hashState, nullTraceSink, type TraceRecord, type TraceSink } from './trace.js';

export interface RunTransitionsDeps {
  runs: RunRepository;
  store: Store;
  notifier: RunNotifier;
  trace: TraceSink;
  redactor: Redactor;
  clock: Clock;
  logger: Logger;
  limits: KernelLimits;
  emit(run: Run): void;
  /** When set, every refusal, execution and outcome is recorded. */
  audit?: AuditLog;
}

export class RunTransitions {
  /** Audit writes started by synchronous steps, awaited at the next save so none is lost. */
  private readonly auditWrites: Promise<unknown>[] = [];

  constructor(private readonly deps: RunTransitionsDeps) {}

  /** Appends a call's result to the transcript, the events and the trace. */
  record(run: Run, call: PlannedCall, outcome: CallOutcome): void {
    const { clock, redactor } = this.deps;
    const at = clock.now();
    const args = redactor.redactValue(call.args ?? call.rawArguments);
    if (outcome.executed || outcome.errorClass) run.usage.toolCalls += 1;
    run.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: outcome.content });
    run.events.push({ type: 'tool_call', at, step: run.step, callId: call.id, tool: call.name, args });
    run.events.push({
      type: 'tool_result',
      at,
      step: run.step,
      callId: call.id,
      tool: call.name,
      ok: outcome.ok,
      ...(outcome.errorClass ? { errorClass: outcome.errorClass } : {}),
      summary: outcome.summary,
      durationMs: outcome.durationMs,
      repeated: outcome.repeated,
    });
    if (outcome.errorClass === 'permission_denied' || outcome.errorClass === 'refused_by_policy') {
      this.auditEntry(run, {
        kind: 'refusal',
        tool: call.name,
        args,
        outcome: outcome.errorClass,
        reason: outcome.summary,
      });
    } else if (outcome.executed) {
      this.auditEntry(run, {
        kind: 'outcome',
        tool: call.name,
        args,
        outcome: outcome.ok ? 'ok' : 'failed',
        reason: outcome.summary,
      });
    }
    if (outcome.executed && outcome.ok && call.args) {
      run.completedCalls[callSignature(call.name, call.args)] = { callId: call.id, content: outcome.content };
    }
    this.deps.emit(run);
    void this.traceStep(run, {
      kind: 'tool_call',
      tool: call.name,
      args,
      ok: outcome.ok,
      summary: outcome.summary,
      durationMs: outcome.durationMs,
    });
  }

  async askUser(
    run: Run,
    call: PlannedCall,
    question: string,
    choices: string[],
    missingFields: string[],
  ): Promise<void> {
    const { clock, limits, notifier } = this.deps;
    const now = clock.now();
    run.status = 'waiting_for_user';
    run.pending = {
      kind: 'question',
      question,
      choices,
      call,
      missingFields,
      askedAt: now,
      expiresAt: now + limits.questionTtlMs,
    };
    run.events.push({ type: 'question_asked', at: now, step: run.step, question, choices });
    this.deps.emit(run);
    const ref = await notifier.post(run, this.questionMessage(run, question, choices));
    if (ref && run.pending.kind === 'question') run.pending.messageId = ref.messageId;
    await notifier.status(run, 'Waiting for your answer', 'warning');
    await this.traceStep(run, { kind: 'question', summary: question, durationMs: 0 });
  }

  /** Shows the answer on the question's message, which loses its buttons: answered by a click or a reply. */
  async showAnswered(
    run: Run,
    pending: Extract<Run['pending'], { kind: 'question' }>,
    answer: string,
    by: string,
  ) {
    if (!pending.messageId) return;
    const message = this.questionMessage(run, pending.question, pending.choices);
    await this.deps.notifier.update(run, pending.messageId, {
      ...message,
      answered: { by, answer, at: this.deps.clock.now() },
    });
  }

  private questionMessage(run: Run, question: string, choices: string[]) {
    return {
      kind: 'question' as const,
      runId: run.id,
      question,
      choices,
      askedOf: run.principal.displayName,
    };
  }

  async finish(
    run: Run,
    answer: string,
    details?: { tool: string; summary: string; data?: unknown }[],
    ok = true,
  ): Promise<void> {
    const { clock, notifier, redactor } = this.deps;
    const text = redactor.redact(answer);
    run.status = 'finished';
    run.answer = text;
    run.pending = null;
    run.events.push({ type: 'finished', at: clock.now(), step: run.step, answer: text });
    this.deps.emit(run);
    await notifier.post(run, {
      kind: 'result',
      runId: run.id,
      text,
      ok,
      ...(details ? { details } : {}),
    });
    await notifier.status(run, ok ? 'Done' : 'Done, with a problem', ok ? 'success' : 'warning');
    await this.traceStep(run, { kind: 'finished', summary: text.slice(0, 200), durationMs: 0 });
  }

  async fail(run: Run, code: string, message: string): Promise<void> {
    const { clock, notifier } = this.deps;
    run.status = 'failed';
    run.error = { code, message };
    run.pending = null;
    run.queue = [];
    run.events.push({ type: 'failed', at: clock.now(), step: run.step, code, message });
    this.deps.emit(run);
    await notifier.post(run, { kind: 'result', runId: run.id, text: message, ok: false });
    await notifier.status(run, 'Failed', 'error');
    await this.traceStep(run, { kind: 'failed', summary: message, durationMs: 0, ok: false });
  }

  async cancel(run: Run, by: string): Promise<void> {
    const { clock, notifier } = this.deps;
    run.status = 'cancelled';
    run.pending = null;
    run.queue = [];
    run.events.push({ type: 'cancelled', at: clock.now(), step: run.step, by });
    this.deps.emit(run);
    await notifier.post(run, { kind: 'text', text: `Cancelled by ${by}.`, tone: 'warning' });
    await notifier.status(run, `Cancelled by ${by}`, 'warning');
    await this.deps.store.delete(`cancel:${run.id}`);
  }

  async save(run: Run): Promise<void> {
    run.updatedAt = this.deps.clock.now();
    if (this.auditWrites.length > 0) await Promise.all(this.auditWrites.splice(0));
    await this.deps.runs.save(run);
  }

  auditEntry(run: Run, entry: Omit<AuditEntryInput, 'actor' | 'runId' | 'conversation'>): void {
    const { audit } = this.deps;
    if (!audit) return;
    this.auditWrites.push(
      audit.record({
        ...entry,
        actor: auditActor(run.principal),
        runId: run.id,
        conversation: run.conversation,
      }),
    );
  }

  async traceStep(run: Run, record: Omit<TraceRecord, 'at' | 'runId' | 'step' | 'stateHash'>): Promise<void> {
    if (this.deps.trace === nullTraceSink) return;
    try {
      await this.deps.trace.append({
        at: this.deps.clock.now(),
        runId: run.id,
        step: run.step,
        stateHash: hashState({
          status: run.status,
          step: run.step,
          usage: run.usage,
          queue: run.queue.map((call) => call.id),
          pending: run.pending?.kind ?? null,
          messages: run.messages.length,
          events: run.events.length,
        }),
        ...record,
      } as TraceRecord);
    } catch (error) {
      this.deps.logger.warn({ runId: run.id, err: errorMessage(error) }, 'could not write the trace');
    }
  }

  async expire(run: Run, message: string): Promise<void> {
    const { clock, notifier } = this.deps;
    run.status = 'expired';
    run.pending = null;
    run.queue = [];
    run.events.push({ type: 'expired', at: clock.now(), step: run.step, message });
    this.deps.emit(run);
    await notifier.post(run, { kind: 'text', text: message, tone: 'warning' });
    await notifier.status(run, 'Expired', 'warning');
  }

  /** A run found mid-action after a restart: the thread is told, and the action is never replayed on its own. */
  async outcomeUnknown(run: Run): Promise<void> {
    if (run.pending?.kind !== 'executing') return;
    const { clock, notifier, redactor } = this.deps;
    const { call } = run.pending;
    run.status = 'outcome_unknown';
    run.events.push({
      type: 'outcome_unknown',
      at: clock.now(),
      step: run.step,
      callId: call.id,
      tool: call.name,
    });
    run.pending = null;
    run.queue = [];
    this.deps.emit(run);
    const args = JSON.stringify(redactor.redactValue(call.args ?? {}));
    await notifier.post(run, {
      kind: 'result',
      runId: run.id,
      ok: false,
      text: `opsbot stopped while running ${call.name} ${args}, before its result was saved. It may or may not have taken effect, and it was NOT run again. Check the system, and ask again if it is still needed.`,
    });
    await notifier.status(run, 'Outcome unknown', 'error');
  }
}

/** What a person sees when their question waited too long. */
export function questionExpired(waitedMs: number): string {
  const hours = waitedMs / 3_600_000;
  const waited = hours >= 1 ? `${Math.round(hours * 10) / 10} h` : `${Math.round(waitedMs / 60_000)} min`;
  return `This question expired unanswered after ${waited}. Ask again to start a new run.`;
}
