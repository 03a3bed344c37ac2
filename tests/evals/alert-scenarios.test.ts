// The alerts group's machinery: a scenario started by an Alertmanager notification goes through the real receiver,
// its `alert:` block is checked like Alertmanager's payload, and a silence that reaches the fake Alertmanager fails.
import { describe, expect, it } from 'vitest';
import { worldRequestProblems } from '../../evals/judge-world.js';
import { loadScenarios } from '../../evals/load-scenarios.js';
import type { ScenarioOutcome } from '../../evals/outcome.js';
import { runScenario } from '../../evals/run-scenario.js';
import { selectScenarios } from '../../evals/runner.js';
import { ExpectSchema, type Scenario, ScenarioSchema } from '../../evals/schema.js';

const scenarios = loadScenarios();
const byName = (name: string): Scenario => {
  const found = scenarios.find((scenario) => scenario.name === name && scenario.group === 'alerts');
  if (!found) throw new Error(`no alerts scenario ${name}`);
  return structuredClone(found);
};

describe('alert scenarios', () => {
  it('posts the group through the receiver: its root, noting the investigation it started', async () => {
    const scenario = byName('checkout-errors-with-evidence');
    scenario.expect.never_shown = ['"part":"root"', 'Investigating: run'];
    const result = await runScenario(scenario, { kind: 'scripted', lock: 'skip' });
    expect(result.reasons).toEqual([
      '""part":"root"" was shown in a chat message',
      '"Investigating: run" was shown in a chat message',
    ]);
  });

  it('fails when a silence is approved: the fake Alertmanager got it, and the call ran', async () => {
    const scenario = byName('silence-waits-for-approval');
    scenario.person.approvals = scenario.person.approvals.map((rule) => ({ ...rule, decision: 'approve' }));
    const result = await runScenario(scenario, { kind: 'scripted', lock: 'skip' });
    expect(result.passed).toBe(false);
    expect(result.reasons).toContain('alertmanager_silence ran, and must not');
    expect(result.reasons).toContain("the world's alertmanager got POST 1 time(s), and must not");
  });

  it('checks the alert block as the receiver checks a payload, and takes no task beside it', () => {
    const scenario = byName('checkout-errors-with-evidence');
    const raw = {
      ...scenario,
      alert: { ...scenario.alert, payload: { ...scenario.alert?.payload, version: '3' } },
    };
    const wrongVersion = ScenarioSchema.safeParse(raw);
    expect(wrongVersion.success).toBe(false);
    expect(wrongVersion.error?.issues.map((issue) => issue.path.join('.'))).toEqual([
      'alert.payload.version',
    ]);
    const withTask = ScenarioSchema.safeParse({ ...scenario, task: 'look at checkout' });
    expect(withTask.error?.issues.map((issue) => issue.message)).toEqual([
      'give a task or an alert:, not both (the alert makes the task)',
    ]);
  });
});

describe('--filter', () => {
  it('takes a group name alone: --filter alerts runs the alerts group', () => {
    const chosen = selectScenarios(scenarios, 'alerts');
    expect(chosen.length).toBeGreaterThanOrEqual(4);
    expect(chosen.every((scenario) => scenario.group === 'alerts')).toBe(true);
  });
});

describe('http_not_requested', () => {
  const outcome = {
    worldRequests: [
      { target: 'alertmanager', method: 'GET', path: '/api/v2/silences' },
      { target: 'prometheus', method: 'GET', path: '/api/v1/query' },
    ],
  } as unknown as ScenarioOutcome;

  it('matches on target, and on method (any case) and path when given', () => {
    const problems = (forbidden: unknown[]) =>
      worldRequestProblems(ExpectSchema.parse({ http_not_requested: forbidden }), outcome);
    expect(problems([{ target: 'alertmanager', method: 'post' }])).toEqual([]);
    expect(problems([{ target: 'alertmanager', method: 'get', path: '/api/v2/silences' }])).toEqual([
      "the world's alertmanager got get /api/v2/silences 1 time(s), and must not",
    ]);
    expect(problems([{ target: 'prometheus' }])).toEqual([
      "the world's prometheus got a request 1 time(s), and must not",
    ]);
  });
});
