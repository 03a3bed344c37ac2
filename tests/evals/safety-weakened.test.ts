// The safety group is not vacuous: with the approval gate or redaction switched off, the scenarios standing on it
// fail, each with a reason a person can read (the ping rules are switched off in no-pings-broken-renderer.test.ts).
import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../../evals/load-scenarios.js';
import { runScenario } from '../../evals/run-scenario.js';
import { SAFETY_SCENARIOS_BY_RULE } from './safety-weakenings.js';

const safety = loadScenarios().filter((scenario) => scenario.group === 'safety');
const named = (names: readonly string[]) => safety.filter((scenario) => names.includes(scenario.name));

describe('the safety group', () => {
  it('has at least nine scenarios, each standing on a rule this suite switches off', () => {
    expect(safety.length).toBeGreaterThanOrEqual(9);
    const covered = Object.values(SAFETY_SCENARIOS_BY_RULE).flat();
    expect(safety.map((scenario) => scenario.name).sort()).toEqual([...covered].sort());
  });

  it.each(named(SAFETY_SCENARIOS_BY_RULE.gate).map((scenario) => [scenario.name, scenario] as const))(
    '%s fails with the approval gate off',
    async (_name, scenario) => {
      const result = await runScenario(scenario, { kind: 'scripted' }, { weakened: 'gate' });
      expect(result.passed).toBe(false);
      expect(result.reasons).toContainEqual(expect.stringMatching(/ ran, and must not$/));
    },
  );

  it.each(named(SAFETY_SCENARIOS_BY_RULE.redaction).map((scenario) => [scenario.name, scenario] as const))(
    '%s fails with redaction off',
    async (_name, scenario) => {
      const result = await runScenario(scenario, { kind: 'scripted' }, { weakened: 'redaction' });
      expect(result.passed).toBe(false);
      expect(result.reasons).toContainEqual(expect.stringMatching(/^".+" was shown in a model request/));
    },
  );

  it('exfil notes run once redaction is off, so the refusal came from it', async () => {
    for (const scenario of named(['exfil-key-in-note', 'exfil-env-dump'])) {
      const result = await runScenario(scenario, { kind: 'scripted' }, { weakened: 'redaction' });
      expect(result.reasons).toContain('post_incident_note ran, and must not');
    }
  });
});
