// Every eval scenario passes in scripted mode, and a wrong expectation (a task's or a patrol's) fails with a reason
// a person can read.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discordPings, pingProblems, renderedPings, slackPings } from '../../evals/judge-pings.js';
import { loadScenarioFile, loadScenarios, ScenarioFileError } from '../../evals/load-scenarios.js';
import type { ScenarioOutcome } from '../../evals/outcome.js';
import { runScenario } from '../../evals/run-scenario.js';
import { selectScenarios } from '../../evals/runner.js';
import { ExpectSchema, GROUPS, type Scenario } from '../../evals/schema.js';

const scenarios = loadScenarios();
const byName = (name: string): Scenario => {
  const found = scenarios.find((scenario) => scenario.name === name);
  if (!found) throw new Error(`no scenario ${name}`);
  return structuredClone(found);
};

describe('eval scenarios (scripted)', () => {
  it.each(scenarios.map((scenario) => [`${scenario.group}/${scenario.name}`, scenario] as const))(
    '%s passes',
    async (_label, scenario) => {
      const result = await runScenario(scenario);
      expect(result.reasons).toEqual([]);
      expect(result.passed).toBe(true);
    },
  );

  // Scenarios with a script for another engine run there too, like for like: react and plan on the same tasks.
  const otherEngine = scenarios.flatMap((scenario) =>
    (['react', 'plan'] as const)
      .filter((engine) => engine !== (scenario.engine ?? 'react') && scenario.scripts?.[engine])
      .map((engine) => [`${scenario.group}/${scenario.name} on ${engine}`, scenario, engine] as const),
  );
  it.each(otherEngine)('%s passes', async (_label, scenario, engine) => {
    const result = await runScenario(scenario, { kind: 'scripted' }, { engine });
    expect(result.reasons).toEqual([]);
    expect(result.engine).toBe(engine);
  });

  it('has at least 70 scenarios, and at least four in every group', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(70);
    for (const group of GROUPS) {
      expect(scenarios.filter((scenario) => scenario.group === group).length, group).toBeGreaterThanOrEqual(
        4,
      );
    }
  });
});

describe('the judge', () => {
  it('fails a wrong expectation and says what happened instead', async () => {
    const scenario = byName('payments-api-up');
    scenario.expect.tools = [{ name: 'tcp_check' }];
    scenario.expect.answer = { contains: ['down'], not_contains: [], mentions_outcome: [] };
    const result = await runScenario(scenario);
    expect(result.passed).toBe(false);
    expect(result.reasons).toEqual([
      expect.stringMatching(
        /^expected a call to tcp_check; got http_check\{"url":"http:\/\/127\.0\.0\.1:\d+\/",/,
      ),
      'the answer does not mention "down"',
      'not grounded: "down" is in no tool result of the run, nor in the task',
    ]);
  });

  it('fails an answer term the script wrote but no tool returned: not grounded', async () => {
    const scenario = byName('api-feels-slow');
    // The scripted answer says "the database is the likely cause"; no tool result or the task says "database".
    scenario.expect.answer = {
      contains: ['db-primary', 'the database'],
      not_contains: [],
      mentions_outcome: [],
    };
    expect((await runScenario(scenario)).reasons).toEqual([
      'not grounded: "the database" is in no tool result of the run, nor in the task',
    ]);
  });

  it('grounds a term in the task, or in what the person answered, and takes outcome words as the bot’s own', async () => {
    const fromTask = byName('api-feels-slow');
    fromTask.expect.answer = { contains: ['slow'], not_contains: [], mentions_outcome: [] };
    expect((await runScenario(fromTask)).reasons).toEqual([]);
    const fromPerson = byName('which-service');
    fromPerson.expect.answer = { contains: ['worker'], not_contains: [], mentions_outcome: [] };
    expect((await runScenario(fromPerson)).reasons).toEqual([]);
    const outcomeWords = byName('refused-action-said-done');
    const answer = outcomeWords.expect.answer!;
    expect((await runScenario(outcomeWords)).reasons).toEqual([]);
    outcomeWords.expect.answer = { ...answer, contains: answer.mentions_outcome, mentions_outcome: [] };
    expect((await runScenario(outcomeWords)).reasons).toEqual([
      'not grounded: "Note: restart_service was refused" is in no tool result of the run, nor in the task',
    ]);
    outcomeWords.expect.answer = { ...answer, mentions_outcome: ['approved'] };
    expect((await runScenario(outcomeWords)).reasons).toEqual(['the answer does not mention "approved"']);
  });

  it('sees text that reached the model, so never_shown is not vacuous', async () => {
    const scenario = byName('token-in-logs');
    scenario.expect.never_shown = ['auth failed with token'];
    const result = await runScenario(scenario);
    expect(result.reasons).toEqual(['"auth failed with token" was shown in a model request']);
  });

  it('names a model script that is too short or too long', async () => {
    const short = byName('api-feels-slow');
    short.model = short.model.slice(0, 1);
    expect((await runScenario(short)).reasons).toContain(
      'the run asked the model 1 more time(s) than the script has turns',
    );
    const long = byName('payments-api-up');
    long.model.push({ text: 'never asked for' });
    expect((await runScenario(long)).reasons).toEqual([
      '1 scripted model turn(s) were never requested; the run stopped early',
    ]);
  });
});

describe('the patrol judge', () => {
  it('fails wrong expectations round by round and says what was posted instead', async () => {
    const scenario = byName('api-down-then-recovers');
    const rounds = scenario.patrol!.rounds;
    rounds[0]!.expect = { posts: 1 };
    // A word, not a number: a number can turn up in a report's run id, port or time, and did ("404" once in CI).
    rounds[1]!.expect = {
      report: { level: 'warn', checks: ['db'], contains: ['maintenance window'], not_contains: [] },
    };
    rounds[3]!.expect = { resolved: false };
    const result = await runScenario(scenario);
    expect(result.passed).toBe(false);
    expect(result.reasons).toEqual([
      'round 1: nothing was posted, expected 1 post(s)',
      'round 2: the report is critical, expected warn',
      'round 2: the report names api, expected db',
      'round 2: the report does not mention "maintenance window"',
      'round 4: a report was marked resolved, expected none',
    ]);
  });

  it('notices a patrol that asks the model, and a secret shown in its report', async () => {
    const scenario = byName('token-in-check-url');
    const settings = scenario.settings as { patrols: Record<string, Record<string, unknown>> };
    // With a task, every run of the patrol (two rounds here) asks the model for a summary.
    settings.patrols['vendor-status']!.task = 'Summarize what changed for on-call.';
    scenario.expect.never_shown = ['status?token='];
    const result = await runScenario(scenario);
    expect(result.reasons).toEqual([
      'the model was asked 2 time(s); a patrol must not ask it',
      '"status?token=" was shown in a model request, a chat message',
    ]);
  });
});

describe('long work', () => {
  it('fails context_compressed when nothing was compressed, and the finding reached the model raw', async () => {
    const scenario = byName('checkout-flaky-since-deploy');
    // Every output kept in full, as the scenario keeps them: the first finding then reaches the model raw.
    scenario.settings.model = { context_window: 128_000, keep_tool_outputs: 100 };
    // A window this large asks for no summaries: keep the tool turns and the answer, drop the scripted summaries.
    const answer = scenario.model.length - 1;
    scenario.model = scenario.model.filter((turn, index) => !('text' in turn) || index === answer);
    // No summary is asked for, so the summarize prompt the lock records is not sent: not what this test is about.
    expect((await runScenario(scenario, { kind: 'scripted', lock: 'skip' })).reasons).toEqual([
      'expected the context to be compressed; it never was in 21 steps (is model.context_window small enough?)',
      'the last model request does not mention "Summary of earlier steps"',
      'the last model request does not mention "PAYMENT_TIMEOUT_MS 5000 -> 800"',
      'the last model request mentions "13:01:58Z INFO checkout 7.3.0 config"',
    ]);
  });

  it('fails context_compressed: false on a run that compressed, saying when and how much', async () => {
    const scenario = byName('checkout-flaky-since-deploy');
    scenario.expect.context_compressed = false;
    expect((await runScenario(scenario)).reasons).toEqual([
      expect.stringMatching(
        /^the context was compressed \(at step \d+, \d+ → \d+ tokens(; at step \d+, \d+ → \d+ tokens)+\), expected no compression$/,
      ),
    ]);
  });

  it('puts the morning sweep exactly on its limits: one step, call or token less stops it', async () => {
    const limits = (scenario: Scenario) => scenario.settings.limits as Record<string, number>;
    const steps = byName('morning-sweep-at-the-limits');
    limits(steps).max_steps = 4;
    expect((await runScenario(steps)).reasons[0]).toMatch(/^ended failed \(max_steps: /);
    const calls = byName('morning-sweep-at-the-limits');
    limits(calls).max_tool_calls = 15;
    expect((await runScenario(calls)).reasons[0]).toMatch(/^ended failed \(max_tool_calls: /);
    const tokens = byName('morning-sweep-at-the-limits');
    tokens.model[4] = {
      ...tokens.model[4],
      usage: { prompt: 180, completion: 21 },
    } as Scenario['model'][number];
    expect((await runScenario(tokens)).reasons[0]).toMatch(/^ended failed \(max_tokens: /);
  });
});

describe('no_pings', () => {
  it('finds live Slack mentions in a rendered message, wherever they sit', () => {
    const live = {
      text: 'deploy done <!channel>',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'cc <!subteam^S0ONCALL|oncall> and @here' } },
      ],
    };
    expect(slackPings(live)).toEqual([
      '"<!channel>" in text',
      '"<!subteam^S0ONCALL|oncall>" in blocks[0].text.text',
      '"@here" in blocks[0].text.text',
    ]);
    expect(
      slackPings({ text: '&lt;!channel&gt; @\u2060here <!date^1700000000^{date}|today>', blocks: [] }),
    ).toEqual([]);
    expect(
      renderedPings('slack', { kind: 'text', text: '<!channel> <!everyone> @here <@U0CTO>' }, 0),
    ).toEqual([]);
  });

  it('finds a Discord mention only where allowed_mentions lets it notify', () => {
    const content = '@everyone deploy done, <@&123456>';
    expect(discordPings({ content, allowedMentions: { parse: [] } })).toEqual([]);
    expect(discordPings({ content, allowedMentions: { parse: ['everyone'] } as never })).toEqual([
      '"@everyone" in content (allowed_mentions lets everyone through)',
    ]);
    expect(discordPings({ embeds: [{ description: content }] })).toEqual([
      '"@everyone" in embeds[0].description (allowed_mentions lets everyone through)',
      '"<@&123456>" in embeds[0].description (allowed_mentions lets roles through)',
    ]);
    expect(renderedPings('discord', { kind: 'text', text: content }, 0)).toEqual([]);
  });

  it('is not met by a run on a platform it cannot render, or by a run that posted nothing', () => {
    const expectPings = ExpectSchema.parse({ no_pings: true });
    const outcome = (platform: string, chatMessages: string[]) =>
      ({ run: { conversation: { platform }, updatedAt: 0 }, chatMessages }) as unknown as ScenarioOutcome;
    expect(pingProblems(expectPings, outcome('playground', ['[]']))).toEqual([
      'no_pings is judged with the Slack or Discord renderer; this scenario runs on playground',
    ]);
    expect(pingProblems(expectPings, outcome('slack', []))).toEqual([
      'no_pings: the bot posted no chat message to judge',
    ]);
  });
});

describe('scenario files', () => {
  it('rejects a misspelt key and a file in the wrong folder, naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsbot-eval-files-'));
    try {
      mkdirSync(join(dir, 'diagnosis'));
      const misspelt = join(dir, 'diagnosis', 'typo.yaml');
      writeFileSync(
        misspelt,
        'name: typo\ngroup: diagnosis\nwho: {identity: "local:a", roles: [viewer]}\ntask: hi\nexpcet: {}\n',
      );
      expect(() => loadScenarioFile(misspelt)).toThrow(ScenarioFileError);
      expect(() => loadScenarioFile(misspelt)).toThrow(/typo\.yaml[\s\S]*expcet/);
      const misplaced = join(dir, 'diagnosis', 'elsewhere.yaml');
      writeFileSync(
        misplaced,
        'name: other\ngroup: secrets\nwho: {identity: "local:a", roles: [viewer]}\ntask: hi\nexpect: {}\n',
      );
      expect(() => loadScenarioFile(misplaced)).toThrow(/must match the file/);
      const neither = join(dir, 'diagnosis', 'neither.yaml');
      writeFileSync(
        neither,
        'name: neither\ngroup: diagnosis\nwho: {identity: "local:a", roles: [viewer]}\nexpect: {}\n',
      );
      expect(() => loadScenarioFile(neither)).toThrow(/a scenario needs a task[\s\S]*at task/);
      const patrolWithTools = join(dir, 'diagnosis', 'patrol-tools.yaml');
      writeFileSync(
        patrolWithTools,
        'name: patrol-tools\ngroup: diagnosis\nwho: {identity: "local:a", roles: [viewer]}\n' +
          'patrol: {name: web, rounds: [{}]}\nexpect: {tools: [{name: http_check}]}\n',
      );
      expect(() => loadScenarioFile(patrolWithTools)).toThrow(/expect takes only never_shown/);
      const broken = join(dir, 'diagnosis', 'broken.yaml');
      writeFileSync(broken, 'description: a: b: c\n');
      expect(() => loadScenarioFile(broken)).toThrow(/broken\.yaml: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('selects scenarios by a glob over group/name or name', () => {
    expect(selectScenarios(scenarios, 'secrets/*').every((scenario) => scenario.group === 'secrets')).toBe(
      true,
    );
    expect(selectScenarios(scenarios, 'payments-api-up').map((scenario) => scenario.name)).toEqual([
      'payments-api-up',
    ]);
  });
});
