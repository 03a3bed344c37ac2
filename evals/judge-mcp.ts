// Judges the MCP side of a run: the calls the world's MCP servers say they received, the tools the model was
// offered, and the approval card a person was shown: its arguments must be the ones the call would run with.
import { textProblems, valueMatches } from './matchers.js';
import type { McpCallExpectation } from './mcp-schema.js';
import type { ScenarioOutcome } from './outcome.js';
import type { Expect } from './schema.js';
import type { McpWorldCall } from './world-mcp.js';

function callMatches(expected: McpCallExpectation, call: McpWorldCall): boolean {
  if (call.server !== expected.server || call.tool !== expected.tool) return false;
  return Object.entries(expected.args ?? {}).every(([key, matcher]) => valueMatches(matcher, call.args[key]));
}

function describeCalls(calls: readonly McpWorldCall[]): string {
  if (calls.length === 0) return 'none';
  return calls.map((call) => `${call.server}/${call.tool}${JSON.stringify(call.args)}`).join(', ');
}

function mcpCallProblems(expect: Expect, calls: readonly McpWorldCall[]): string[] {
  const problems: string[] = [];
  for (const expected of expect.mcp_called) {
    if (!calls.some((call) => callMatches(expected, call))) {
      const args = expected.args ? ` with ${JSON.stringify(expected.args)}` : '';
      problems.push(
        `MCP server ${expected.server} never received ${expected.tool}${args}; it received ${describeCalls(calls)}`,
      );
    }
  }
  for (const forbidden of expect.mcp_not_called) {
    const got = calls.filter((call) => callMatches({ ...forbidden, args: undefined }, call));
    if (got.length > 0) {
      problems.push(
        `MCP server ${forbidden.server} received ${forbidden.tool} ${got.length} time(s), and must not: ${describeCalls(got)}`,
      );
    }
  }
  return problems;
}

/** The names of the tools one model request offered; undefined when its body is not a chat request. */
function offeredIn(rawBody: string): string[] | undefined {
  try {
    const body = JSON.parse(rawBody) as { tools?: { function?: { name?: unknown } }[] };
    return (body.tools ?? []).map((tool) => String(tool.function?.name));
  } catch {
    return undefined;
  }
}

function offerProblems(expect: Expect, outcome: ScenarioOutcome): string[] {
  if (expect.tools_offered.length === 0 && expect.tools_not_offered.length === 0) return [];
  const offers = outcome.modelRequests.flatMap((body) => {
    const offered = offeredIn(body);
    return offered ? [offered] : [];
  });
  if (offers.length === 0) return ['tools_offered / tools_not_offered: the model was sent no request'];
  const problems: string[] = [];
  for (const wanted of expect.tools_offered) {
    const missing = offers.filter((offered) => !offered.includes(wanted)).length;
    if (missing > 0)
      problems.push(`${wanted} was not offered in ${missing} of ${offers.length} model request(s)`);
  }
  for (const unwanted of expect.tools_not_offered) {
    const shown = offers.filter((offered) => offered.includes(unwanted)).length;
    if (shown > 0) problems.push(`${unwanted} was offered in ${shown} model request(s), and must not be`);
  }
  return problems;
}

function approvalCardProblems(expect: Expect, outcome: ScenarioOutcome): string[] {
  const expected = expect.approval_card;
  if (!expected) return [];
  const card = outcome.approvalCards.find((candidate) => candidate.tool === expected.tool);
  if (!card) {
    const posted = outcome.approvalCards.map((candidate) => candidate.tool).join(', ') || 'none';
    return [`no approval card was posted for ${expected.tool}; cards posted: ${posted}`];
  }
  const args = JSON.parse(card.argumentsJson) as Record<string, unknown>;
  const problems = Object.entries(expected.args).flatMap(([key, matcher]) =>
    valueMatches(matcher, args[key])
      ? []
      : [`the approval card shows ${key}=${JSON.stringify(args[key])}, expected ${JSON.stringify(matcher)}`],
  );
  const shown = [card.argumentsJson, card.willRun ?? '', card.impact ?? ''].join('\n');
  problems.push(
    ...textProblems(
      `the approval card for ${expected.tool}`,
      { contains: expected.contains, not_contains: [] },
      shown,
    ),
  );
  return problems;
}

export function mcpProblems(expect: Expect, outcome: ScenarioOutcome): string[] {
  return [
    ...mcpCallProblems(expect, outcome.mcpCalls),
    ...offerProblems(expect, outcome),
    ...approvalCardProblems(expect, outcome),
  ];
}
