// Whether a model run is getting anywhere is read from its own events: the same calls again with nothing new, or
// three steps with nothing new, make it stuck; its last step, or "stop here" to that question, makes it wrap up.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../agent/run-events.js';
import { noProgress, STOP_HERE, wrapUpFor } from '../../agent/run-progress.js';

let nextId = 0;
type Result = { ok?: boolean; repeated?: boolean; errorClass?: string };

/** One model turn at `step` asking for these calls, each with its result. */
function turn(step: number, calls: Array<[tool: string, args: unknown, result?: Result]>): RunEvent[] {
  const ids = calls.map(() => `call_${++nextId}`);
  return [
    {
      type: 'model_turn',
      at: step,
      step,
      content: null,
      toolCalls: calls.map(([tool], index) => ({ id: ids[index]!, name: tool })),
      promptTokens: 1,
      completionTokens: 1,
      durationMs: 1,
    },
    ...calls.flatMap(([tool, args, result = {}], index): RunEvent[] => [
      { type: 'tool_call', at: step, step, callId: ids[index]!, tool, args },
      {
        type: 'tool_result',
        at: step,
        step,
        callId: ids[index]!,
        tool,
        ok: result.ok ?? true,
        ...(result.errorClass ? { errorClass: result.errorClass } : {}),
        summary: 'x',
        durationMs: 1,
        repeated: result.repeated ?? false,
      },
    ]),
  ];
}

const repeat = { repeated: true };

describe('noProgress', () => {
  it('is quiet while calls bring news, and after one repeat', () => {
    expect(noProgress({ events: turn(1, [['http_check', { url: 'a' }]]) })).toBeUndefined();
    const events = [
      ...turn(1, [['http_check', { url: 'a' }]]),
      ...turn(2, [['http_check', { url: 'a' }, repeat]]),
    ];
    expect(noProgress({ events })).toBeUndefined();
  });

  it('finds a model asking for the same calls again when neither turn found anything new', () => {
    const events = [
      ...turn(1, [['http_check', { url: 'a' }, { ok: false }]]),
      ...turn(2, [['http_check', { url: 'a' }, { ok: false, errorClass: 'transient', repeated: true }]]),
      ...turn(3, [['http_check', { url: 'a' }, { ok: false, errorClass: 'transient', repeated: true }]]),
    ];
    expect(noProgress({ events })).toBe(
      'the model asked for the same call again (http_check), and it brings nothing new',
    );
  });

  it('finds three steps in a row that found nothing new, whatever was asked', () => {
    const events = [
      ...turn(1, [['http_check', { url: 'a' }]]),
      ...turn(2, [['http_check', { url: 'a' }, repeat]]),
      ...turn(3, [['restart_service', { service: 'api' }, { ok: false, errorClass: 'permission_denied' }]]),
      ...turn(4, [['nonexistent', {}, { ok: false, errorClass: 'refused_by_policy' }]]),
    ];
    expect(noProgress({ events })).toBe(
      'the last 3 steps found nothing new (http_check, restart_service, nonexistent)',
    );
  });

  it('counts again from the requester’s answer: an answer is news', () => {
    const stale = [
      ...turn(1, [['http_check', { url: 'a' }]]),
      ...turn(2, [['http_check', { url: 'a' }, repeat]]),
      ...turn(3, [['http_check', { url: 'a' }, repeat]]),
    ];
    expect(noProgress({ events: stale })).toBeDefined();
    const answered: RunEvent = {
      type: 'answer_received',
      at: 4,
      step: 4,
      answer: 'keep going',
      by: 'local:alice',
    };
    expect(noProgress({ events: [...stale, answered] })).toBeUndefined();
    expect(
      noProgress({ events: [...stale, answered, ...turn(5, [['http_check', { url: 'a' }, repeat]])] }),
    ).toBeUndefined();
  });

  it('does not count a turn where one call of several brought news', () => {
    const events = [
      ...turn(1, [['http_check', { url: 'a' }]]),
      ...turn(2, [
        ['http_check', { url: 'a' }, repeat],
        ['tcp_check', { host: 'db', port: 5432 }],
      ]),
      ...turn(3, [['http_check', { url: 'a' }, repeat]]),
      ...turn(4, [['http_check', { url: 'a' }, repeat]]),
    ];
    // Turns 3 and 4 ask the same and find nothing: stuck by the repeat rule, not the three-turn rule.
    expect(noProgress({ events })).toMatch(/^the model asked for the same call again/);
    expect(noProgress({ events: events.slice(0, -3) })).toBeUndefined();
  });
});

describe('wrapUpFor', () => {
  const stuck: RunEvent[] = [
    { type: 'stuck', at: 3, step: 3, reason: 'r' },
    { type: 'question_asked', at: 3, step: 3, question: 'q', choices: ['keep going', 'stop here'] },
  ];

  it('is the step limit on the last step the run may take', () => {
    expect(wrapUpFor({ events: [], step: 10 }, 12)).toBeUndefined();
    expect(wrapUpFor({ events: [], step: 11 }, 12)).toEqual({ reason: 'step_limit', maxSteps: 12 });
  });

  it('is the requester when "stop here" answered the stuck question, until the model has answered', () => {
    const answered: RunEvent = {
      type: 'answer_received',
      at: 4,
      step: 3,
      answer: ` ${STOP_HERE.toUpperCase()} `,
      by: 'local:alice',
    };
    expect(wrapUpFor({ events: [...stuck, answered], step: 3 }, 12)).toEqual({
      reason: 'requester',
      by: 'local:alice',
    });
    const later = turn(4, [['http_check', { url: 'a' }]]);
    expect(wrapUpFor({ events: [...stuck, answered, ...later], step: 4 }, 12)).toBeUndefined();
  });

  it('is nothing for "stop here" to another question, or another answer to the stuck one', () => {
    const asked: RunEvent = { type: 'question_asked', at: 3, step: 3, question: 'which?', choices: [] };
    const stop: RunEvent = {
      type: 'answer_received',
      at: 4,
      step: 3,
      answer: 'stop here',
      by: 'local:alice',
    };
    expect(wrapUpFor({ events: [asked, stop], step: 3 }, 12)).toBeUndefined();
    const other: RunEvent = { ...stop, answer: 'check the worker instead' };
    expect(wrapUpFor({ events: [...stuck, other], step: 3 }, 12)).toBeUndefined();
  });
});
