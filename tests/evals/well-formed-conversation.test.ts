// The scripted model reads what opsbot sends as a real API does: a conversation with a tool call left unanswered
// fails the scenario with the API's 400. Shown by breaking the conversation on its way out, as a kernel that
// dropped every failed call's tool message would send it (a break the suite once passed 44 of 44 with).
import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../../evals/load-scenarios.js';
import { runScenario } from '../../evals/run-scenario.js';
import type { FakeChatMessage, FakeRequestBody } from '../fakes/openai-answers.js';

/** A tool message whose result did not pass: the kernel writes those as JSON with `ok: false`. */
function failedResult(message: FakeChatMessage): boolean {
  if (message.role !== 'tool' || typeof message.content !== 'string') return false;
  try {
    return (JSON.parse(message.content) as { ok?: unknown }).ok === false;
  } catch {
    return false;
  }
}

const dropFailedToolMessages = (body: FakeRequestBody): FakeRequestBody =>
  body.messages ? { ...body, messages: body.messages.filter((message) => !failedResult(message)) } : body;

/** Scenarios whose scripted model goes on after a call that failed or was refused. */
const WITH_FAILED_CALLS = [
  'diagnosis/database-port-closed',
  'failure/api-returns-503',
  'failure/same-failure-twice',
  'permissions/refused-action-said-done',
  'permissions/danger-outside-ops',
  'mcp/viewer-reads-not-deletes',
];

describe('a conversation that drops failed calls’ tool messages', () => {
  const scenarios = loadScenarios().filter((scenario) =>
    WITH_FAILED_CALLS.includes(`${scenario.group}/${scenario.name}`),
  );

  it.each(scenarios.map((scenario) => [`${scenario.group}/${scenario.name}`, scenario] as const))(
    '%s fails with the API’s error',
    async (_label, scenario) => {
      const broken = await runScenario(scenario, {
        kind: 'scripted',
        rewriteRequest: dropFailedToolMessages,
      });
      expect(broken.passed).toBe(false);
      expect(broken.reasons.join('\n')).toContain(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'",
      );
    },
  );

  it('covers every listed scenario, and each passes unbroken', async () => {
    expect(scenarios).toHaveLength(WITH_FAILED_CALLS.length);
    for (const scenario of scenarios) expect((await runScenario(scenario)).reasons).toEqual([]);
  });
});
