// The optional LLM judge (--judge-model) against the fake OpenAI server: what it is sent, its verdict checked
// item by item, reported beside the expectations, and deciding only where a scenario has no expectations.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evalCommand } from '../../evals/eval-command.js';
import { loadScenarios } from '../../evals/load-scenarios.js';
import { RUBRIC_JUDGE_PROMPT_START } from '../../evals/rubric-judge.js';
import { runScenario } from '../../evals/run-scenario.js';
import { ExpectSchema, type Scenario } from '../../evals/schema.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text } from '../fakes/openai-server.js';

const scenarios = loadScenarios();
const byName = (name: string): Scenario => structuredClone(scenarios.find((each) => each.name === name)!);

const verdict = (...passes: boolean[]) =>
  text(
    JSON.stringify({
      items: passes.map((pass, index) => ({
        item: index + 1,
        pass,
        reason: pass ? 'it does' : 'it does not',
      })),
    }),
  );

let fake: FakeOpenAIServer;
beforeEach(async () => {
  fake = await startFakeOpenAIServer();
});
afterEach(async () => {
  await fake.close();
});
const judge = () => ({ baseURL: fake.baseURL, apiKey: 'sk-judge', model: 'judge-model' });

describe('the rubric judge', () => {
  it('is sent the task, the tools’ results and the answer, and reports its verdict while the expectations decide', async () => {
    fake.reply(verdict(true, false, true));
    const result = await runScenario(byName('api-feels-slow'), { kind: 'scripted' }, { judge: judge() });
    expect(result.passed).toBe(true);
    expect(result.rubric).toEqual({
      model: 'judge-model',
      items: [
        {
          item: 'Names db-primary as the likely cause, citing the upstream timeouts in the log.',
          pass: true,
          reason: 'it does',
        },
        {
          item: 'Says the api still answers, only slowly, rather than calling it down.',
          pass: false,
          reason: 'it does not',
        },
        { item: 'Proposes or takes no restart.', pass: true, reason: 'it does' },
      ],
    });
    expect(fake.requests).toHaveLength(1);
    const [system, asked] = fake.requests[0]!.body.messages!;
    expect(String(system!.content)).toMatch(new RegExp(`^${RUBRIC_JUDGE_PROMPT_START}`));
    expect(fake.requests[0]!.body.model).toBe('judge-model');
    const request = String(asked!.content);
    expect(request).toContain("Task: the api feels slow, what's going on");
    expect(request).toContain('upstream timeout talking to db-primary after 3000ms');
    expect(request).toContain('Answer: The api answers, but slowly (about 400 ms).');
    expect(request).toContain('3. Proposes or takes no restart.');
  });

  it('decides a scenario without expectations: each failed item is a reason', async () => {
    const scenario = byName('api-feels-slow');
    scenario.expect = ExpectSchema.parse({});
    fake.reply(verdict(true, false, true));
    const result = await runScenario(scenario, { kind: 'scripted' }, { judge: judge() });
    expect(result.reasons).toEqual([
      'rubric: "Says the api still answers, only slowly, rather than calling it down." failed: it does not',
    ]);
  });

  it('takes no prose or short verdict for a pass: it is an error, which fails a scenario the rubric decides', async () => {
    const scenario = byName('api-feels-slow');
    scenario.expect = ExpectSchema.parse({});
    fake.reply(text('All three items pass.'));
    const prose = await runScenario(scenario, { kind: 'scripted' }, { judge: judge() });
    expect(prose.reasons).toEqual([expect.stringMatching(/^rubric: the judge's reply is not a verdict: /)]);
    fake.reply(verdict(true, true));
    const short = await runScenario(scenario, { kind: 'scripted' }, { judge: judge() });
    expect(short.reasons).toEqual(["rubric: the judge's verdict covers items [1,2], expected [1,2,3]"]);
    // With expectations, the same error is only reported.
    fake.reply(text('{"items": "yes"}'));
    const reported = await runScenario(byName('api-feels-slow'), { kind: 'scripted' }, { judge: judge() });
    expect(reported.passed).toBe(true);
    expect(reported.rubric).toMatchObject({
      error: expect.stringMatching(/^the judge's reply is not a verdict/),
    });
  });

  it('runs from the command line with --judge-model, and shows the verdict under the row', async () => {
    fake.reply(verdict(true, false, true));
    const dir = mkdtempSync(join(tmpdir(), 'opsbot-eval-judge-'));
    try {
      const lines: string[] = [];
      const io = {
        out: (line: string) => lines.push(line),
        err: (line: string) => lines.push(line),
        progress: () => {},
      };
      const argv = ['--filter', 'api-feels-slow', '--results', dir, '--cassettes', join(dir, 'c')];
      const code = await evalCommand(
        [...argv, '--judge-model', 'judge-model'],
        { OPENAI_BASE_URL: fake.baseURL },
        io,
      );
      expect(code).toBe(0);
      const output = lines.join('\n');
      expect(output).toContain('    rubric (judge-model): 2/3 items passed');
      expect(output).toContain(
        '      ✗ Says the api still answers, only slowly, rather than calling it down.: it does not',
      );
      lines.length = 0;
      expect(await evalCommand([...argv, '--judge-model', 'judge-model'], {}, io)).toBe(2);
      expect(lines.join('\n')).toContain('--judge-model needs the server it runs on: set OPENAI_BASE_URL');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
