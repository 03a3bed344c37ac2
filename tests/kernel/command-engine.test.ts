// The command engine: `tool key=value`, aliases and a button's planned call through the same executor, with no model.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseCommand, splitWords } from '../../agent/engines/command-parser.js';
import { defineTool } from '../../agent/tool.js';
import { ToolPermissionError } from '../../agent/tool-errors.js';
import { alice, answerRun, conversation, createHarness, type Harness, runTask } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

describe('command engine', () => {
  it('splits quoted words', () => {
    expect(splitWords(`check_http url="https://a b" note='x y' z`)).toEqual([
      'check_http',
      'url=https://a b',
      'note=x y',
      'z',
    ]);
    expect(parseCommand('logs service=api', (name) => name === 'read_logs', { logs: 'read_logs' })).toEqual({
      kind: 'call',
      tool: 'read_logs',
      args: { service: 'api' },
    });
  });

  it('runs a tool from `name key=value` and answers with its summary and data', async () => {
    harness = await createHarness({ model: false });
    const run = await runTask(harness.kernel, {
      text: 'check_http url=https://a.example',
      principal: alice,
      conversation,
    });
    expect(run.engine).toBe('command');
    expect(run.status).toBe('finished');
    expect(run.answer).toBe('https://a.example answered 200');
    expect(harness.chat.ofKind('result')[0]!.details).toEqual([
      { tool: 'check_http', summary: 'https://a.example answered 200', data: { status: 200 } },
    ]);
  });

  it("runs a button's planned call as it is, not what its task text says", async () => {
    harness = await createHarness({ model: true });
    const args = { url: 'https://planned.example' };
    const run = await runTask(harness.kernel, {
      text: 'read_logs service=api (from a button)',
      principal: alice,
      conversation,
      engine: 'command',
      plan: { calls: [{ id: 'btn_1', name: 'check_http', args, rawArguments: JSON.stringify(args) }] },
    });
    expect(run.status).toBe('finished');
    expect(harness.probe.calls).toEqual([{ tool: 'check_http', args }]);
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('expands a configured alias', async () => {
    harness = await createHarness({ model: false, kernel: { aliases: { logs: 'read_logs service=api' } } });
    const run = await runTask(harness.kernel, { text: 'logs', principal: alice, conversation });
    expect(run.status).toBe('finished');
    expect(harness.probe.calls).toEqual([{ tool: 'read_logs', args: { service: 'api' } }]);
  });

  it('asks for a missing argument, then runs', async () => {
    harness = await createHarness({ model: false });
    const run = await runTask(harness.kernel, { text: 'restart_service', principal: alice, conversation });
    expect(run.status).toBe('waiting_for_user');
    const done = await answerRun(harness.kernel, run.id, 'worker', alice);
    expect(done.status).toBe('finished');
    expect(harness.probe.calls).toEqual([{ tool: 'restart_service', args: { service: 'worker' } }]);
  });

  it('answers free text with the commands and how to configure a model', async () => {
    harness = await createHarness({ model: false });
    const run = await runTask(harness.kernel, { text: 'is the api up?', principal: alice, conversation });
    expect(run.status).toBe('finished');
    expect(run.answer).toContain('no model is configured');
    expect(run.answer).toContain('OPENAI_BASE_URL');
    expect(run.answer).toContain('`check_http`');
  });

  it('reports invalid arguments clearly', async () => {
    harness = await createHarness({ model: false });
    const run = await runTask(harness.kernel, {
      text: 'restart_service service=database',
      principal: alice,
      conversation,
    });
    expect(run.status).toBe('finished');
    expect(run.answer).toMatch(/restart_service did not run: Invalid arguments for restart_service: service/);
    expect(harness.probe.calls).toHaveLength(0);
  });
});

describe('command engine results', () => {
  it('shows a command that did not run as a failed result, not a success', async () => {
    harness = await createHarness({ model: false });
    await runTask(harness.kernel, {
      text: 'restart_service service=database',
      principal: alice,
      conversation,
    });
    expect(harness.chat.ofKind('result')[0]).toMatchObject({ ok: false });
    expect(harness.chat.ofKind('status').at(-1)).toMatchObject({ tone: 'warning' });
  });

  it('says a tool that threw failed, in its own words, not that it did not run', async () => {
    const exploding = defineTool({
      name: 'exploding_probe',
      description: 'A probe that runs and then throws, for this test.',
      input: z.object({}),
      risk: 'read',
      async execute() {
        throw new Error('the disk is on fire');
      },
    });
    harness = await createHarness({ model: false, kernel: { tools: [exploding] } });
    const run = await runTask(harness.kernel, { text: 'exploding_probe', principal: alice, conversation });
    expect(run.answer).toBe('exploding_probe failed: the disk is on fire');
    expect(harness.chat.ofKind('result')[0]).toMatchObject({ ok: false });
  });

  it('says a call its target refused ran and was refused, not that it did not run', async () => {
    const guarded = defineTool({
      name: 'guarded_read',
      description: 'A read whose target says no, for this test.',
      input: z.object({}),
      risk: 'read',
      async execute() {
        throw new ToolPermissionError('access denied - path outside allowed directories');
      },
    });
    harness = await createHarness({ model: false, kernel: { tools: [guarded] } });
    const run = await runTask(harness.kernel, { text: 'guarded_read', principal: alice, conversation });
    expect(run.answer).toBe('guarded_read: access denied - path outside allowed directories');
    expect(run.answer).not.toContain('did not run');
    expect(harness.chat.ofKind('result')[0]).toMatchObject({ ok: false });
  });
});
