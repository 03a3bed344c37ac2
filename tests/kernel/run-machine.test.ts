// The run machine's transition table: every (state, event) pair is allowed with its next state, or refused
// with a reason a person can read. The rows come from the machine's own lists, so a new state or event
// without a row here fails.
import { describe, expect, it } from 'vitest';
import { RUN_STATUSES, RunSchema, type RunStatus } from '../../agent/run.js';
import { ALLOWED_FROM, type RunMachineEventType, transition } from '../../agent/run-machine.js';
import { sampleEvents, sampleRuns } from './run-machine-samples.js';

const EVENTS = Object.keys(ALLOWED_FROM) as RunMachineEventType[];

/** Where each allowed event leads from each state; a missing entry means the pair is refused. */
const TABLE: { [S in RunStatus]: Partial<Record<RunMachineEventType, RunStatus>> } = {
  queued: {
    thread_busy: 'queued',
    handed_to_queue: 'queued',
    work_started: 'running',
    failed: 'failed',
    cancelled: 'cancelled',
    message_posted: 'queued',
  },
  running: {
    work_started: 'running',
    calls_planned: 'running',
    plan_made: 'running',
    call_recorded: 'running',
    step_completed: 'running',
    question_asked: 'waiting_for_user',
    stuck: 'waiting_for_user',
    engine_switched: 'running',
    approval_requested: 'waiting_for_approval',
    execution_started: 'executing',
    finished: 'finished',
    failed: 'failed',
    cancelled: 'cancelled',
    message_posted: 'running',
  },
  executing: {
    execution_finished: 'running',
    action_interrupted: 'outcome_unknown',
    message_posted: 'executing',
  },
  waiting_for_user: {
    answer_received: 'queued',
    question_expired: 'expired',
    cancelled: 'cancelled',
    message_posted: 'waiting_for_user',
  },
  waiting_for_approval: {
    approval_counted: 'waiting_for_approval',
    approval_decided: 'queued',
    approval_expired: 'expired',
    cancelled: 'cancelled',
    message_posted: 'waiting_for_approval',
  },
  finished: { message_posted: 'finished' },
  failed: { message_posted: 'failed' },
  cancelled: { message_posted: 'cancelled' },
  expired: { message_posted: 'expired' },
  outcome_unknown: { message_posted: 'outcome_unknown' },
};

const REFUSALS: Partial<Record<RunStatus, RegExp>> = {
  cancelled: /^run run_sample was cancelled by Alice at 12:03 UTC$/,
  finished: /^run run_sample already finished at 12:03 UTC$/,
  executing: /^run run_sample is running restart_service right now$/,
  waiting_for_approval: /^run run_sample is waiting for an approval of restart_service$/,
};

describe('the run machine', () => {
  it('has a row for every state and a sample for every event', () => {
    expect(Object.keys(TABLE).sort()).toEqual([...RUN_STATUSES].sort());
    expect(Object.keys(sampleEvents).sort()).toEqual([...EVENTS].sort());
  });

  for (const status of RUN_STATUSES) {
    describe(`from ${status}`, () => {
      for (const type of EVENTS) {
        const expected = TABLE[status][type];
        it(expected ? `${type} → ${expected}` : `${type} is refused`, () => {
          const before = structuredClone(sampleRuns[status]);
          const result = transition(sampleRuns[status], sampleEvents[type]);
          // Pure: the run it was given is never changed.
          expect(sampleRuns[status]).toEqual(before);
          if (!expected) {
            expect(result.ok).toBe(false);
            if (result.ok) return;
            expect(result.refusal).toMatchObject({ code: 'wrong_state', event: type, from: status });
            expect(result.refusal.message).toMatch(REFUSALS[status] ?? /^run run_sample /);
            return;
          }
          expect(result.ok).toBe(true);
          if (!result.ok) return;
          expect(result.run.status).toBe(expected);
          // Every state the machine produces is a valid stored run.
          expect(RunSchema.safeParse(result.run).success).toBe(true);
        });
      }
    });
  }
});

describe('what the transitions cause', () => {
  const kinds = (status: RunStatus, type: RunMachineEventType) => {
    const result = transition(sampleRuns[status], sampleEvents[type]);
    if (!result.ok) throw new Error(result.refusal.message);
    return result.effects.map((effect) => effect.kind);
  };

  it('shows a run a gateway hands to the queue: working, or that no worker runs', () => {
    const shown = (workers: 'seen' | 'none') => {
      const result = transition(sampleRuns.queued, { type: 'handed_to_queue', at: 0, workers });
      if (!result.ok) throw new Error(result.refusal.message);
      return result.effects;
    };
    expect(shown('seen')).toEqual([
      { kind: 'status', text: 'Working on it…', tone: 'working' },
      { kind: 'save' },
    ]);
    expect(shown('none')[0]).toMatchObject({
      kind: 'status',
      tone: 'warning',
      text: expect.stringMatching(/^Queued: no worker is running right now\. It starts as soon as one does/),
    });
  });

  it('posts a plan as its checklist and saves it at once, so a restart goes on with it', () => {
    expect(kinds('running', 'plan_made')).toEqual(['post', 'save', 'trace']);
  });

  it("updates a plan's posted checklist as its steps change, before the transition's own effects", () => {
    const plan = sampleEvents.plan_made.plan;
    const running = { ...sampleRuns.running, stepPlan: { ...plan, messageId: 'm_plan' } };
    const completed = transition(running, sampleEvents.step_completed);
    expect(completed.ok && completed.effects.map((effect) => effect.kind)).toEqual(['update', 'save']);
    const ended = transition(running, sampleEvents.cancelled);
    expect(ended.ok && ended.effects[0]).toMatchObject({
      kind: 'update',
      messageId: 'm_plan',
      message: { kind: 'plan', steps: [{ state: 'skipped', summary: 'not run: the run was cancelled' }] },
    });
    // A run without a plan, or with one not posted, has no checklist to update.
    expect(kinds('running', 'step_completed')).toEqual(['save']);
  });

  it('saves `executing` before an action runs, so a crash is never replayed', () => {
    expect(kinds('running', 'execution_started')).toEqual(['audit', 'save']);
  });

  it('frees the thread at every end, before saving it, and keeps it while the run waits for a person', () => {
    for (const [status, type] of [
      ['running', 'finished'],
      ['running', 'failed'],
      ['running', 'cancelled'],
      ['waiting_for_user', 'question_expired'],
      ['waiting_for_approval', 'approval_expired'],
      ['executing', 'action_interrupted'],
    ] as const) {
      const effects = kinds(status, type);
      expect(effects).toContain('free_thread');
      // A crash between the two must not leave the thread locked by a run that no longer needs it.
      expect(effects.indexOf('free_thread')).toBeLessThan(effects.indexOf('save'));
    }
    // Waiting for an answer or an approval, the run keeps its thread: another reply there queues behind it.
    expect(kinds('running', 'approval_requested')).not.toContain('free_thread');
    expect(kinds('running', 'question_asked')).not.toContain('free_thread');
    expect(kinds('running', 'stuck')).not.toContain('free_thread');
  });

  it('hands a run back to the queue after an answer or an approval, after saving it', () => {
    for (const [status, type] of [
      ['waiting_for_user', 'answer_received'],
      ['waiting_for_approval', 'approval_decided'],
    ] as const) {
      const effects = kinds(status, type);
      expect(effects.indexOf('save')).toBeGreaterThanOrEqual(0);
      expect(effects.indexOf('enqueue')).toBeGreaterThan(effects.indexOf('save'));
    }
  });

  it('closes the open card or question when a waiting run is cancelled, naming who cancelled', () => {
    const fromApproval = transition(sampleRuns.waiting_for_approval, sampleEvents.cancelled);
    const fromQuestion = transition(sampleRuns.waiting_for_user, sampleEvents.cancelled);
    if (!fromApproval.ok || !fromQuestion.ok) throw new Error('refused');
    expect(fromApproval.effects[0]).toMatchObject({
      kind: 'update',
      messageId: 'm_card',
      message: { kind: 'approval', decision: { outcome: 'withdrawn', by: 'Alice' } },
    });
    expect(fromQuestion.effects[0]).toMatchObject({
      kind: 'update',
      messageId: 'm_question',
      message: { kind: 'question', answered: { by: 'Alice', answer: '(cancelled by Alice)' } },
    });
  });

  it('continues an expired approval when on_denial is continue, telling the model why', () => {
    const result = transition(sampleRuns.waiting_for_approval, {
      ...sampleEvents.approval_expired,
      stopOnDenial: false,
    });
    if (!result.ok) throw new Error(result.refusal.message);
    expect(result.run.status).toBe('queued');
    expect(result.run.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_1' });
    expect(result.run.messages.at(-1)?.content).toContain('expired before anyone decided (at 12:18 UTC)');
  });

  it('refuses a decision for an approval the run no longer waits for', () => {
    const result = transition(sampleRuns.waiting_for_approval, {
      ...sampleEvents.approval_decided,
      approvalId: 'apv_other',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.refusal.code).toBe('other_approval');
  });

  it('stops on denial when on_denial is stop, and never runs a call whose approval does not bind', () => {
    const denied = transition(sampleRuns.waiting_for_approval, {
      ...sampleEvents.approval_decided,
      decision: 'deny',
      stopOnDenial: true,
    });
    const unbound = transition(sampleRuns.waiting_for_approval, {
      ...sampleEvents.approval_decided,
      bound: false,
    });
    if (!denied.ok || !unbound.ok) throw new Error('refused');
    expect(denied.run.status).toBe('failed');
    expect(unbound.run.status).toBe('queued');
    expect(unbound.run.queue.some((call) => call.approved)).toBe(false);
    expect(unbound.run.messages.at(-1)?.content).toContain('does not match');
  });
});
