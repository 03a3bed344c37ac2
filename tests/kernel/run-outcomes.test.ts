// A run's outcome facts come from its own events: the last result of each distinct call, whatever the model said.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../agent/run-events.js';
import { callOutcomes, outcomeProblems } from '../../agent/run-outcomes.js';

let nextId = 0;
function call(tool: string, args: unknown, result: { ok: boolean; errorClass?: string; summary: string }) {
  const callId = `call_${++nextId}`;
  return [
    { type: 'tool_call', at: 0, step: 1, callId, tool, args },
    { type: 'tool_result', at: 0, step: 1, callId, tool, durationMs: 1, repeated: false, ...result },
  ] as RunEvent[];
}

describe('callOutcomes', () => {
  it('keeps the last result of each distinct call: a failure made good by the same call passing is cleared', () => {
    const events = [
      ...call('http_check', { url: 'http://a/' }, { ok: false, summary: 'GET http://a/ failed: refused' }),
      ...call('http_check', { url: 'http://b/' }, { ok: false, summary: 'GET http://b/ failed: refused' }),
      ...call('http_check', { url: 'http://a/' }, { ok: true, summary: 'GET http://a/ → 200' }),
    ];
    expect(callOutcomes({ events }).map(({ tool, state, summary }) => ({ tool, state, summary }))).toEqual([
      { tool: 'http_check', state: 'failed', summary: 'GET http://b/ failed: refused' },
      { tool: 'http_check', state: 'ok', summary: 'GET http://a/ → 200' },
    ]);
    expect(outcomeProblems({ events }).map((fact) => fact.summary)).toEqual([
      'GET http://b/ failed: refused',
    ]);
  });

  it('tells a refusal by the rules from a failure, and drops the class from its summary', () => {
    const events = call(
      'restart_service',
      { service: 'api' },
      { ok: false, errorClass: 'permission_denied', summary: 'permission_denied: danger tools only in #ops' },
    );
    expect(outcomeProblems({ events })).toEqual([
      expect.objectContaining({
        tool: 'restart_service',
        state: 'refused',
        summary: 'danger tools only in #ops',
      }),
    ]);
  });

  it('leaves out what the model got wrong (bad arguments, a tool that does not exist): no fact about the systems', () => {
    const events = [
      ...call('http_check', { url: 7 }, { ok: false, errorClass: 'invalid_argument', summary: 'bad url' }),
      ...call('no_such_tool', {}, { ok: false, errorClass: 'refused_by_policy', summary: 'no tool' }),
      ...call('http_check', { url: 'http://a/' }, { ok: true, summary: 'GET http://a/ → 200' }),
    ];
    expect(outcomeProblems({ events })).toEqual([]);
    expect(callOutcomes({ events })).toHaveLength(1);
  });

  it('counts a timed-out or held-back call as failed', () => {
    const events = call(
      'http_check',
      { url: 'http://slow/' },
      {
        ok: false,
        errorClass: 'transient',
        summary: 'transient: http_check is temporarily disabled after repeated failures.',
      },
    );
    expect(outcomeProblems({ events })).toEqual([expect.objectContaining({ state: 'failed' })]);
  });
});

describe('callOutcomes and repeats', () => {
  it('keeps the words of the call a repeat answered from memory, once', () => {
    const first = call(
      'http_check',
      { url: 'http://a/', timeout_ms: 5000 },
      { ok: false, summary: 'GET http://a/ returned 404.' },
    );
    const again = call(
      'http_check',
      { url: 'http://a/', timeout_ms: 5000 },
      {
        ok: false,
        errorClass: 'transient',
        summary: 'transient: http_check with these arguments failed the same way at step 1',
      },
    ).map((event) => (event.type === 'tool_result' ? { ...event, repeated: true } : event));
    expect(outcomeProblems({ events: [...first, ...again] }).map((fact) => fact.summary)).toEqual([
      'GET http://a/ returned 404.',
    ]);
  });
});
