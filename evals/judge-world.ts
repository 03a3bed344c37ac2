// Judges what the world's HTTP targets were sent: requests that must never have reached them (a silence posted
// to the fake Alertmanager), whichever tool or path sent them.
import type { ScenarioOutcome } from './outcome.js';
import type { Expect } from './schema.js';

export function worldRequestProblems(expect: Expect, outcome: ScenarioOutcome): string[] {
  return expect.http_not_requested.flatMap((forbidden) => {
    const got = outcome.worldRequests.filter(
      (request) =>
        request.target === forbidden.target &&
        (forbidden.method === undefined || request.method === forbidden.method.toUpperCase()) &&
        (forbidden.path === undefined || request.path === forbidden.path),
    );
    if (got.length === 0) return [];
    const what = [forbidden.method, forbidden.path].filter(Boolean).join(' ') || 'a request';
    return [`the world's ${forbidden.target} got ${what} ${got.length} time(s), and must not`];
  });
}
