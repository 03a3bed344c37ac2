// A sample run in each state and a sample of each machine event, for the transition table and the docs.

import type { PlannedCall, Run, RunBase, RunStatus } from '../../agent/run.js';
import { RUN_SCHEMA_VERSION } from '../../agent/run.js';
import type { ApprovalCard, RunMachineEvent, RunMachineEventType } from '../../agent/run-machine.js';

export const AT = Date.UTC(2026, 0, 1, 12, 3);

export const sampleCall: PlannedCall = {
  id: 'call_1',
  name: 'restart_service',
  rawArguments: '{"service":"api"}',
  args: { service: 'api' },
};

const base: RunBase = {
  schemaVersion: RUN_SCHEMA_VERSION,
  id: 'run_sample',
  engine: 'react',
  principal: { platform: 'slack', userId: 'U1', displayName: 'Alice', roles: ['operator'], groups: [] },
  conversation: { platform: 'slack', channelId: 'C1', threadId: '1.1' },
  task: 'restart the api',
  createdAt: AT,
  updatedAt: AT,
  step: 1,
  usage: { promptTokens: 0, completionTokens: 0, modelCalls: 1, toolCalls: 0 },
  messages: [{ role: 'user', content: 'restart the api' }],
  queue: [sampleCall],
  completedCalls: {},
  activeMs: 0,
  askAttempts: 0,
  failedActions: [],
  events: [{ type: 'task_received', at: AT, step: 0, text: 'restart the api', engine: 'react' }],
};

const card: ApprovalCard = {
  kind: 'approval',
  runId: base.id,
  approvalId: 'apv_sample',
  requester: 'Alice',
  tool: 'restart_service',
  argumentsJson: '{"service":"api"}',
  reason: '',
  approvers: ['admin'],
  expiresAt: AT + 900_000,
};

/** One run in every state; `satisfies` makes a new state without a sample a type error. */
export const sampleRuns = {
  queued: { ...base, status: 'queued' },
  running: { ...base, status: 'running' },
  executing: { ...base, status: 'executing', executing: { call: sampleCall, startedAt: AT } },
  waiting_for_user: {
    ...base,
    status: 'waiting_for_user',
    question: {
      question: 'Which service?',
      choices: ['api', 'worker'],
      call: sampleCall,
      missingFields: [],
      askedAt: AT,
      expiresAt: AT + 86_400_000,
      messageId: 'm_question',
    },
  },
  waiting_for_approval: {
    ...base,
    status: 'waiting_for_approval',
    approval: {
      approvalId: 'apv_sample',
      call: sampleCall,
      requestedAt: AT,
      expiresAt: AT + 900_000,
      cardMessageId: 'm_card',
      approvals: 1,
      approvedBy: [],
    },
  },
  finished: { ...base, queue: [], status: 'finished', answer: 'done', ok: true },
  failed: { ...base, queue: [], status: 'failed', error: { code: 'engine_error', message: 'boom' } },
  cancelled: { ...base, queue: [], status: 'cancelled', cancelled: { by: 'Alice', at: AT } },
  expired: { ...base, queue: [], status: 'expired', expired: { message: 'expired', at: AT } },
  outcome_unknown: { ...base, queue: [], status: 'outcome_unknown', unknownCall: sampleCall },
} satisfies { [S in RunStatus]: Extract<Run, { status: S }> };

const alice = { key: 'slack:U1', displayName: 'Alice' };
const bob = { key: 'slack:U2', displayName: 'Bob' };
const outcome = {
  content: '{"ok":true}',
  ok: true,
  summary: 'restarted api',
  repeated: false,
  durationMs: 5,
  executed: true,
  displayArgs: { service: 'api' },
};

/** One event of every type, with a typical payload; `satisfies` makes a new event without a sample an error. */
export const sampleEvents = {
  thread_busy: { type: 'thread_busy', at: AT, position: 2 },
  handed_to_queue: { type: 'handed_to_queue', at: AT, workers: 'none' },
  work_started: { type: 'work_started', at: AT },
  calls_planned: { type: 'calls_planned', at: AT, calls: [sampleCall] },
  plan_made: {
    type: 'plan_made',
    at: AT,
    plan: {
      round: 1,
      steps: [
        {
          id: 's1',
          round: 1,
          callId: 'plan1_1',
          tool: 'restart_service',
          args: { service: 'api' },
          dependsOn: [],
        },
      ],
    },
  },
  call_recorded: { type: 'call_recorded', at: AT, call: sampleCall, outcome },
  step_completed: { type: 'step_completed', at: AT },
  question_asked: {
    type: 'question_asked',
    at: AT,
    call: sampleCall,
    question: 'Which service?',
    choices: ['api', 'worker'],
    missingFields: ['service'],
    expiresAt: AT + 86_400_000,
  },
  answer_received: {
    type: 'answer_received',
    at: AT,
    answer: 'api',
    by: alice,
    take: { kind: 'arguments', args: { service: 'api' } },
    expiresAt: AT + 86_400_000,
  },
  question_expired: { type: 'question_expired', at: AT },
  engine_switched: {
    type: 'engine_switched',
    at: AT,
    engine: 'command',
    reason: 'the model is unreachable since 2026-01-01 12:03 UTC (connection refused)',
  },
  stuck: {
    type: 'stuck',
    at: AT,
    reason: 'the last 3 steps found nothing new (http_check)',
    callId: 'stuck_2',
    expiresAt: AT + 86_400_000,
  },
  approval_requested: {
    type: 'approval_requested',
    at: AT,
    call: sampleCall,
    approvalId: 'apv_sample',
    expiresAt: AT + 900_000,
    card,
    decides: {
      bindingHash: 'a'.repeat(64),
      approvers: { roles: ['admin'], identities: ['local:bob'], includesDefaultRole: false, names: ['Bob'] },
      reason: 'the api is stuck',
      displayArgs: { service: 'api' },
    },
  },
  approval_counted: { type: 'approval_counted', at: AT, approvalId: 'apv_sample', by: bob },
  approval_decided: {
    type: 'approval_decided',
    at: AT,
    approvalId: 'apv_sample',
    decision: 'approve',
    by: bob,
    bound: true,
    stopOnDenial: false,
  },
  approval_expired: { type: 'approval_expired', at: AT, approvalId: 'apv_sample', stopOnDenial: true },
  execution_started: { type: 'execution_started', at: AT, call: sampleCall, displayArgs: { service: 'api' } },
  execution_finished: { type: 'execution_finished', at: AT, call: sampleCall, outcome },
  finished: { type: 'finished', at: AT, answer: 'done', ok: true },
  failed: { type: 'failed', at: AT, code: 'max_steps', message: 'Stopped after 12 steps' },
  cancelled: { type: 'cancelled', at: AT, by: alice },
  action_interrupted: { type: 'action_interrupted', at: AT },
  message_posted: { type: 'message_posted', slot: 'question', messageId: 'm_2' },
} satisfies { [E in RunMachineEventType]: Extract<RunMachineEvent, { type: E }> };
