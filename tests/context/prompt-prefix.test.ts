// Prompt prefixes through the real kernel, openai SDK and fake server: each request repeats the one before it
// byte for byte until old tool outputs are cut, cuts come in batches and leave summaries, and the setting checks.
import { describe, expect, it } from 'vitest';
import { CUT_NOTE } from '../../agent/context/cut-tool-outputs.js';
import { FIRST_FINDING, PAGE_TOOL } from '../../bench/prompts/page-tool.js';
import { tallyPrompts } from '../../bench/prompts/prefix-tokens.js';
import { runOpsbot } from '../../bench/prompts/prompt-run.js';
import { parseSettings } from '../../bot/config/load-settings.js';
import { InvalidSettingsError } from '../../bot/config/settings-problem.js';
import { type FakeRequestBody, text, toolCalls } from '../fakes/openai-answers.js';
import { alice, answerRun, conversation, createHarness, runTask } from '../kernel/harness.js';

const serialized = (body: FakeRequestBody) => (body.messages ?? []).map((message) => JSON.stringify(message));
const toolContents = (body: FakeRequestBody) =>
  (body.messages ?? [])
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));

describe('prompt prefixes', () => {
  it('repeat every earlier message and the tools byte for byte when nothing is cut', async () => {
    const { bodies } = await runOpsbot({ steps: 8, outputBytes: 5_000, model: { keep_tool_outputs: 100 } });
    expect(bodies).toHaveLength(9);
    for (let index = 1; index < bodies.length; index++) {
      const before = serialized(bodies[index - 1]!);
      const after = serialized(bodies[index]!);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.length).toBeGreaterThan(before.length);
      expect(JSON.stringify(bodies[index]!.tools)).toBe(JSON.stringify(bodies[0]!.tools));
    }
    // Only what each turn adds is new: the first request, then one reply and one ~5 KB output per step.
    const tally = tallyPrompts(bodies);
    for (const request of tally.requests.slice(1)) expect(request.uncached).toBeLessThan(1_500);
  });

  it('cut old outputs to their summaries in batches, keeping the latest in full, and still cite the first finding', async () => {
    const keep = 4;
    const { bodies, answer, run } = await runOpsbot({
      steps: 20,
      outputBytes: 5_000,
      model: { keep_tool_outputs: keep },
    });
    expect(run.events.some((event) => event.type === 'context_compressed')).toBe(false);
    let cuts = 0;
    for (let index = 1; index < bodies.length; index++) {
      const before = serialized(bodies[index - 1]!);
      const after = serialized(bodies[index]!);
      if (after.slice(0, before.length).every((message, at) => message === before[at])) continue;
      cuts++;
      // A cut rewrites old outputs only: the system prompt and the task stay the same.
      expect(after.slice(0, 2)).toEqual(before.slice(0, 2));
    }
    // Full outputs pile up to keep + batch (8) before each cut back to 4: after steps 9, 13 and 17.
    expect(cuts).toBe(3);

    const last = toolContents(bodies.at(-1)!);
    expect(last).toHaveLength(20);
    const cut = last.filter((content) => content.includes(CUT_NOTE));
    expect(cut.length).toBeGreaterThanOrEqual(12);
    const first = JSON.parse(last[0]!) as { tool: string; summary: string };
    expect(first.tool).toBe(PAGE_TOOL);
    expect(first.summary).toContain(FIRST_FINDING);
    for (const content of last.slice(-keep)) {
      expect(content).not.toContain(CUT_NOTE);
      expect(content.length).toBeGreaterThan(4_000);
    }
    // The cut is kept in the run, so later requests repeat it rather than cutting again.
    expect(
      run.messages.filter((message) => message.role === 'tool' && message.content.includes(CUT_NOTE)),
    ).toHaveLength(cut.length);
    // Each cut is recorded in the run, with what it cut.
    const recorded = run.events.filter((event) => event.type === 'tool_outputs_cut');
    expect(recorded.map((event) => event.keptTurns)).toEqual([keep, keep, keep]);
    expect(recorded.reduce((sum, event) => sum + event.count, 0)).toBe(cut.length);
    expect(answer).toContain(FIRST_FINDING);
  });

  it('cost at most half the prompt tokens of a run that resends everything, uncached', async () => {
    const full = tallyPrompts(
      (await runOpsbot({ steps: 20, outputBytes: 5_000, model: { keep_tool_outputs: 100 } })).bodies,
    );
    const shipped = tallyPrompts((await runOpsbot({ steps: 20, outputBytes: 5_000 })).bodies);
    expect(shipped.uncached).toBeLessThanOrEqual(full.total * 0.5);
    expect(shipped.total).toBeLessThan(full.total * 0.7);
  });

  it('repeat the run so far byte for byte in a new process that takes the run over, clock moved on', async () => {
    const harness = await createHarness({ store: 'sqlite' });
    try {
      harness.fake.reply(
        toolCalls([{ name: 'read_logs', arguments: { service: 'api' } }]),
        toolCalls([{ name: 'ask_user', arguments: { question: 'Which environment?' } }]),
      );
      const waiting = await runTask(harness.kernel, {
        text: 'check the api',
        principal: alice,
        conversation,
      });
      expect(waiting.status).toBe('waiting_for_user');
      harness.clock.advance(3_600_000);
      harness.fake.reply(text('the api is fine'));
      const finished = await answerRun(harness.newKernel(), waiting.id, 'staging', alice);
      expect(finished.status).toBe('finished');
      const [, beforeQuestion, afterAnswer] = harness.fake.requests.map((request) => request.body);
      const before = serialized(beforeQuestion!);
      expect(serialized(afterAnswer!).slice(0, before.length)).toEqual(before);
      expect(JSON.stringify(afterAnswer!.tools)).toBe(JSON.stringify(beforeQuestion!.tools));
    } finally {
      await harness.close();
    }
  });
});

describe('model.keep_tool_outputs', () => {
  it('defaults to 4 and takes a whole number of turns', () => {
    expect(parseSettings('', 'opsbot.yaml').model.keep_tool_outputs).toBe(4);
    expect(parseSettings('model:\n  keep_tool_outputs: 8\n', 'opsbot.yaml').model.keep_tool_outputs).toBe(8);
  });

  it.each([
    ['0', 'at least 1'],
    ['2.5', 'whole number'],
    ['many', 'expected a number'],
    ['1000', 'at most 100'],
  ])('refuses %s with a message that says why', (value, words) => {
    let error: unknown;
    try {
      parseSettings(`model:\n  keep_tool_outputs: ${value}\n`, 'opsbot.yaml');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidSettingsError);
    const problem = (error as InvalidSettingsError).problems[0]!;
    expect(problem.key).toBe('model.keep_tool_outputs');
    expect(problem.line).toBe(2);
    expect(problem.message).toContain(words);
  });
});
