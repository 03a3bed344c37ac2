// The person who answers the bot's questions: scripted from `person.answers` and `who.knows` by a fixed rule, and
// live as a second model, here the fake OpenAI server playing both the model and the user (told apart by the
// request's system prompt).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evalCommand } from '../../evals/eval-command.js';
import { loadScenarios } from '../../evals/load-scenarios.js';
import { runScenario } from '../../evals/run-scenario.js';
import type { Scenario } from '../../evals/schema.js';
import {
  answerFromFacts,
  I_DO_NOT_KNOW,
  SIMULATED_USER_PROMPT_START,
  scriptedUser,
} from '../../evals/simulated-user.js';
import {
  type FakeOpenAIServer,
  type RecordedRequest,
  startFakeOpenAIServer,
  text,
  toolCalls,
} from '../fakes/openai-server.js';

const scenarios = loadScenarios();
const byName = (name: string): Scenario => structuredClone(scenarios.find((each) => each.name === name)!);

describe('the fixed rule over what the person knows', () => {
  const facts = [
    'The slow service is the worker; it started after the deploy.',
    'I am on the payments team.',
  ];

  it('picks the choice named by the fact closest to the question', () => {
    const asked = { question: 'Which service got slow?', choices: ['api', 'worker', 'payments'] };
    expect(answerFromFacts(asked, facts)).toBe('worker');
    // "payments" is named too, but by a fact that has nothing to do with a slow service.
    expect(answerFromFacts({ ...asked, choices: ['payments', 'worker'] }, facts)).toBe('worker');
  });

  it('answers free text with the closest fact, and "I don\'t know" when no fact touches the question', () => {
    expect(answerFromFacts({ question: 'When did the service get slow?', choices: [] }, facts)).toBe(
      facts[0],
    );
    expect(answerFromFacts({ question: 'What port does the database use?', choices: [] }, facts)).toBe(
      I_DO_NOT_KNOW,
    );
    expect(answerFromFacts({ question: 'Which region?', choices: ['eu', 'us'] }, facts)).toBe(I_DO_NOT_KNOW);
  });

  it('keeps person.answers first, fills placeholders, and says why it cannot answer without rules or facts', async () => {
    const scenario = byName('which-site-url');
    const user = scriptedUser(scenario, { 'http.staging.url': 'http://127.0.0.1:4242/' });
    expect(await user.answer({ question: 'What is the URL?', choices: [] })).toEqual({
      answer: 'http://127.0.0.1:4242/',
    });
    const bare = byName('which-site-url');
    bare.person.answers = [];
    bare.who.knows = [];
    expect(await scriptedUser(bare, {}).answer({ question: 'Which one?', choices: [] })).toEqual({
      note: 'no person.answers rule matches the question "Which one?", and who.knows is empty',
    });
  });

  it('sends the person’s own words to the model, with the world’s address filled in', async () => {
    const toolMessages: string[] = [];
    const result = await runScenario(byName('which-site-url'), {
      kind: 'scripted',
      rewriteRequest: (body) => {
        for (const message of body.messages ?? [])
          if (message.role === 'tool') toolMessages.push(String(message.content));
        return body;
      },
    });
    expect(result.reasons).toEqual([]);
    expect(toolMessages.find((content) => content.includes('"tool":"ask_user"'))).toMatch(
      /"answer":"http:\/\/127\.0\.0\.1:\d+\/"/,
    );
  });
});

describe('a live run with a simulated user', () => {
  let dir: string;
  let fake: FakeOpenAIServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'opsbot-eval-user-'));
    fake = await startFakeOpenAIServer();
  });
  afterEach(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const isUserRequest = (request: RecordedRequest) =>
    String(request.body.messages?.[0]?.content ?? '').startsWith(SIMULATED_USER_PROMPT_START);

  async function liveRun(filter: string, extra: string[] = []) {
    const lines: string[] = [];
    const code = await evalCommand(
      ['--live', '--filter', filter, ...extra, '--cassettes', join(dir, 'c'), '--results', join(dir, 'r')],
      { OPENAI_BASE_URL: fake.baseURL, OPENAI_MODEL: 'stand-in-model' },
      { out: (line) => lines.push(line), err: (line) => lines.push(line), progress: () => {} },
    );
    return { code, output: lines.join('\n') };
  }

  it('answers a question worded its own way from the facts, through the user model', async () => {
    fake.respond((request) => {
      if (isUserRequest(request)) return text('The worker. It got slow after the deploy.');
      const messages = request.body.messages ?? [];
      const answered = messages.find((message) => message.role === 'tool');
      // The live model asks in its own words, which no person.answers rule would have matched.
      if (!answered) {
        return toolCalls([{ name: 'ask_user', arguments: { question: 'Got a name for the sluggish one?' } }]);
      }
      if (messages.filter((message) => message.role === 'tool').length === 1) {
        return toolCalls([{ name: 'service_status', arguments: { service: 'worker' } }]);
      }
      return text('The worker is active (running).');
    });
    const run = await liveRun('answers-from-what-they-know', ['--user-model', 'person-model']);
    expect(run.output).toMatch(/missing_details\/answers-from-what-they-know\s+pass/);
    expect(run.output).toContain('the person is played by person-model');
    expect(run.code).toBe(0);

    const asked = fake.requests.filter(isUserRequest);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.body.model).toBe('person-model');
    const prompt = String(asked[0]!.body.messages?.[0]?.content);
    expect(prompt).toContain("- The slow service is the worker; it started after this morning's deploy.");
    expect(prompt).toContain('How you come across: a developer on the team, not on call, polite but brief');
    expect(prompt).toContain(`reply exactly "${I_DO_NOT_KNOW}"`);
    expect(asked[0]!.body.messages?.[1]?.content).toBe('Got a name for the sluggish one?');
    // What the user model said reached the bot's model as the person's answer.
    const botRequests = fake.requests.filter((request) => !isUserRequest(request));
    expect(JSON.stringify(botRequests.at(-1)!.body.messages)).toContain(
      'The worker. It got slow after the deploy.',
    );
  });

  it('passes on "I don\'t know" from the user model, and plays the person with the live model by default', async () => {
    fake.respond((request) => {
      if (isUserRequest(request)) return text(I_DO_NOT_KNOW);
      const tool = (request.body.messages ?? []).find((message) => message.role === 'tool');
      if (!tool) return toolCalls([{ name: 'ask_user', arguments: { question: 'Which port is it on?' } }]);
      return text("I could not check the orders database: you don't know where it listens.");
    });
    const run = await liveRun('person-does-not-know');
    expect(run.output).toMatch(/person-does-not-know\s+pass/);
    expect(fake.requests.filter(isUserRequest).map((request) => request.body.model)).toEqual([
      'stand-in-model',
    ]);
  });

  it('refuses --user-model without --live', async () => {
    const lines: string[] = [];
    const code = await evalCommand(
      ['--user-model', 'x'],
      {},
      {
        out: (line) => lines.push(line),
        err: (line) => lines.push(line),
        progress: () => {},
      },
    );
    expect(code).toBe(2);
    expect(lines.join('\n')).toContain('--user-model plays the person in a live run: add --live');
  });
});
