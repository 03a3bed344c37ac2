// MCP tools while the bot runs, through the real kernel and our test server: a definition trusted anew is offered
// as the model will now see it, a tool listed later joins the registry (off until trusted), and a server that was
// down at start brings its tools once it answers, all without a restart.
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpPinRepository } from '../../tools/mcp/mcp-pin-repository.js';
import { DEFAULT_TEST_TOOLS } from '../fakes/mcp/test-mcp-tools.js';
import { lastToolMessage, McpKernelHarness } from './mcp-kernel-harness.js';

const WAIT = { timeout: 20_000, interval: 25 };
let harness: McpKernelHarness;
beforeEach(() => {
  harness = new McpKernelHarness();
});
afterEach(async () => harness.close());

const NEW_DESCRIPTION = 'Answers with its text, in a new voice';
const changedEcho = {
  tools: DEFAULT_TEST_TOOLS.tools.map((tool) =>
    tool.name === 'echo' ? { ...tool, description: NEW_DESCRIPTION } : tool,
  ),
};
const withFresh = { tools: [...DEFAULT_TEST_TOOLS.tools, { name: 'fresh', behaviour: 'echo' as const }] };

function available(bot: { kernel: { registry: { available(): Array<{ name: string }> } } }): string[] {
  return bot.kernel.registry.available().map((tool) => tool.name);
}

describe('MCP tools while the bot runs', () => {
  it('offers a definition trusted while running, as it is now listed, without a restart', async () => {
    const bot = await harness.start();
    harness.writeTools(changedEcho);
    await expect.poll(() => available(bot), WAIT).not.toContain('test__echo');

    const repository = new McpPinRepository(harness.store, harness.clock);
    await repository.trust('test', bot.source.listedTools('test'), 'local:bob', 'echo');
    await bot.source.refreshPins();
    expect(available(bot)).toContain('test__echo');
    expect(bot.kernel.registry.spec('test__echo')?.description).toContain(NEW_DESCRIPTION);
    expect(bot.source.status()[0]?.heldBack).toEqual([]);
    expect((await bot.run('test__echo text=again')).status).toBe('finished');
  });

  it('adds a tool listed later, off until trusted, then on after trust', async () => {
    const bot = await harness.start(harness.settings({ tools: { risk: { fresh: 'read' } } }));
    expect(bot.kernel.registry.get('test__fresh')).toBeUndefined();
    harness.writeTools(withFresh);
    await expect.poll(() => bot.kernel.registry.get('test__fresh') !== undefined, WAIT).toBe(true);
    expect(available(bot)).not.toContain('test__fresh');
    const refused = await bot.run('test__fresh text=x');
    expect(lastToolMessage(refused).parsed).toMatchObject({
      error: { class: 'refused_by_policy', message: expect.stringContaining('test__fresh is new on test') },
    });
    expect(harness.calls().some((call) => call.tool === 'fresh')).toBe(false);

    const repository = new McpPinRepository(harness.store, harness.clock);
    await repository.trust('test', bot.source.listedTools('test'), 'local:bob', 'fresh');
    await bot.source.refreshPins();
    expect(available(bot)).toContain('test__fresh');
    expect((await bot.run('test__fresh text=hello')).status).toBe('finished');
    expect(harness.calls()).toContainEqual({ tool: 'fresh', args: { text: 'hello' } });
  });

  it('offers a tool listed later at once on a server with trust_new_tools', async () => {
    const bot = await harness.start(harness.settings({ trust_new_tools: true }));
    harness.writeTools(withFresh);
    await expect.poll(() => available(bot), WAIT).toContain('test__fresh');
  });

  it('keeps a tool the server stops listing, switched off with why', async () => {
    const bot = await harness.start();
    harness.writeTools({ tools: DEFAULT_TEST_TOOLS.tools.filter((tool) => tool.name !== 'echo') });
    await expect.poll(() => available(bot), WAIT).not.toContain('test__echo');
    const refused = await bot.run('test__echo text=x');
    expect(lastToolMessage(refused).parsed).toMatchObject({
      error: { class: 'refused_by_policy', message: 'test__echo is no longer listed by MCP server test' },
    });
  });

  it('brings the tools of a server down at start once it answers, first sight recorded then', async () => {
    writeFileSync(harness.toolFile, '{ not json');
    const bot = await harness.start();
    expect(bot.source.status()[0]?.up).toBe(false);
    expect(bot.kernel.registry.names()).toEqual([]);
    expect(bot.logs.join('')).toContain('the bot runs without its tools until it answers');

    // Two more failed restarts, the same way: retried quietly, not warned about again.
    for (const backoff of [2_000, 4_000]) {
      harness.timers.fire();
      await expect.poll(() => [...harness.timers.delays.values()], WAIT).toContain(backoff);
    }
    const downWarnings = () => bot.logs.filter((line) => line.includes('"msg":"MCP server down')).length;
    expect(downWarnings()).toBe(1);

    harness.writeTools(DEFAULT_TEST_TOOLS);
    harness.timers.fire(); // the backoff's restart
    await expect.poll(() => available(bot), WAIT).toContain('test__echo');
    expect((await bot.run('test__echo text=late')).status).toBe('finished');
    const pins = await new McpPinRepository(harness.store, harness.clock).find('test');
    expect([...pins.keys()]).toContain('echo');
    expect(bot.logs.join('')).toContain('MCP server test is up again');
    expect(downWarnings()).toBe(1);
  });
});
