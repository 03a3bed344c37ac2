// Judges a scenario's outcome against its `expect`: every unmet expectation becomes one readable reason.
import { compressionProblems, lastRequestProblems } from './judge-context.js';
import { groundingProblems } from './judge-grounding.js';
import { mcpProblems } from './judge-mcp.js';
import { outcomeProblems } from './judge-outcome.js';
import { pingProblems } from './judge-pings.js';
import { worldRequestProblems } from './judge-world.js';
import { textProblems, valueMatches } from './matchers.js';
import { answerOf, ran, type ScenarioOutcome, type ToolCallRecord } from './outcome.js';
import type { Expect, ToolExpectation } from './schema.js';

function callMatches(expected: ToolExpectation, call: ToolCallRecord): boolean {
  if (expected.name !== call.tool) return false;
  if (expected.ok !== undefined && expected.ok !== call.ok) return false;
  if (expected.error_class !== undefined && expected.error_class !== call.errorClass) return false;
  const args = (call.args ?? {}) as Record<string, unknown>;
  return Object.entries(expected.args ?? {}).every(([key, matcher]) => valueMatches(matcher, args[key]));
}

function describeExpected(expected: ToolExpectation): string {
  const details = [
    expected.args ? `args ${JSON.stringify(expected.args)}` : '',
    expected.ok === undefined ? '' : `ok ${expected.ok}`,
    expected.error_class ? `error_class ${expected.error_class}` : '',
  ].filter(Boolean);
  return details.length > 0 ? `${expected.name} (${details.join(', ')})` : expected.name;
}

function describeCalls(calls: ToolCallRecord[]): string {
  if (calls.length === 0) return 'no tool calls';
  return calls
    .map(
      (call) => `${call.tool}${JSON.stringify(call.args)}${call.errorClass ? ` [${call.errorClass}]` : ''}`,
    )
    .join(', ');
}

function toolProblems(expect: Expect, calls: ToolCallRecord[]): string[] {
  const problems: string[] = [];
  for (const expected of expect.tools ?? []) {
    if (!calls.some((call) => callMatches(expected, call))) {
      problems.push(`expected a call to ${describeExpected(expected)}; got ${describeCalls(calls)}`);
    }
  }
  if (expect.tools_in_order) {
    let position = 0;
    for (const expected of expect.tools_in_order) {
      const found = calls.findIndex((call, index) => index >= position && callMatches(expected, call));
      if (found === -1) {
        problems.push(`expected ${describeExpected(expected)} next in order; got ${describeCalls(calls)}`);
        break;
      }
      position = found + 1;
    }
  }
  for (const forbidden of expect.tools_not_run) {
    if (calls.some((call) => call.tool === forbidden && ran(call)))
      problems.push(`${forbidden} ran, and must not`);
  }
  return problems;
}

function waitProblems(expect: Expect, outcome: ScenarioOutcome): string[] {
  const calls = describeCalls(outcome.toolCalls);
  const problems: string[] = [];
  const asked = outcome.questions;
  if (expect.question_asked === true && asked.length === 0)
    problems.push('expected a question; none was asked');
  if (expect.question_asked === false && asked.length > 0)
    problems.push(`asked "${asked[0]}", expected no question`);
  if (typeof expect.question_asked === 'object') {
    problems.push(...textProblems('the question', expect.question_asked, asked[0]));
  }
  const requested = outcome.approvalsRequested;
  const approval = expect.approval_requested;
  if (approval === true && requested.length === 0)
    problems.push(`expected an approval request; none was made (calls: ${calls})`);
  if (approval === false && requested.length > 0) {
    problems.push(`approval requested for ${requested.join(', ')}, expected none`);
  }
  if (typeof approval === 'object' && !requested.includes(approval.tool)) {
    const got = requested.join(', ') || 'none';
    problems.push(`expected an approval request for ${approval.tool}; got ${got} (calls: ${calls})`);
  }
  return problems;
}

function leakProblems(expect: Expect, outcome: ScenarioOutcome): string[] {
  const problems: string[] = [];
  const answer = answerOf(outcome.run) ?? '';
  for (const secret of expect.never_shown) {
    const places = [
      outcome.modelRequests.some((body) => body.includes(secret)) ? 'a model request' : '',
      outcome.chatMessages.some((message) => message.includes(secret)) ? 'a chat message' : '',
      answer.includes(secret) ? 'the answer' : '',
    ].filter(Boolean);
    if (places.length > 0) problems.push(`"${secret}" was shown in ${places.join(', ')}`);
  }
  return problems;
}

function budgetProblems(expect: Expect, outcome: ScenarioOutcome): string[] {
  const { run } = outcome;
  const tokens = run.usage.promptTokens + run.usage.completionTokens;
  const problems: string[] = [];
  if (expect.max_steps !== undefined && run.step > expect.max_steps) {
    problems.push(`took ${run.step} steps, at most ${expect.max_steps} expected`);
  }
  if (expect.max_tool_calls !== undefined && run.usage.toolCalls > expect.max_tool_calls) {
    problems.push(`made ${run.usage.toolCalls} tool calls, at most ${expect.max_tool_calls} expected`);
  }
  if (expect.max_tokens !== undefined && tokens > expect.max_tokens) {
    problems.push(`used ${tokens} tokens, at most ${expect.max_tokens} expected`);
  }
  return problems;
}

function answerProblems(answer: NonNullable<Expect['answer']>, outcome: ScenarioOutcome): string[] {
  const text = answerOf(outcome.run);
  const worded = { ...answer, contains: [...answer.contains, ...answer.mentions_outcome] };
  const task = outcome.run.events.find((event) => event.type === 'task_received');
  return [
    ...textProblems('the answer', worded, text),
    // With no answer at all there is nothing to ground: the line above says so once.
    ...(text === undefined
      ? []
      : groundingProblems(answer.contains, outcome, task?.type === 'task_received' ? task.text : '')),
  ];
}

/** Every reason the scenario failed; empty when it passed. */
export function judge(expect: Expect, outcome: ScenarioOutcome): string[] {
  const { run } = outcome;
  const problems: string[] = [];
  if (expect.status !== undefined && run.status !== expect.status) {
    const why = run.status === 'failed' ? ` (${run.error.code}: ${run.error.message})` : '';
    const person = outcome.personNotes.length > 0 ? `; ${outcome.personNotes.join('; ')}` : '';
    problems.push(`ended ${run.status}${why}${person}, expected ${expect.status}`);
  }
  if (expect.error_code !== undefined) {
    const code = run.status === 'failed' ? run.error.code : undefined;
    if (code !== expect.error_code)
      problems.push(`error code ${code ?? 'none'}, expected ${expect.error_code}`);
  }
  problems.push(...toolProblems(expect, outcome.toolCalls), ...waitProblems(expect, outcome));
  if (expect.answer) problems.push(...answerProblems(expect.answer, outcome));
  problems.push(...leakProblems(expect, outcome), ...budgetProblems(expect, outcome));
  problems.push(...outcome.modelProblems);
  problems.push(...compressionProblems(expect, outcome), ...lastRequestProblems(expect, outcome));
  problems.push(...pingProblems(expect, outcome), ...outcomeProblems(expect, outcome));
  problems.push(...worldRequestProblems(expect, outcome), ...mcpProblems(expect, outcome));
  return problems;
}
