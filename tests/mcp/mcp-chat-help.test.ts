// What /ops help and /ops permissions tell a person about MCP tools, through the real router over a kernel with
// our test server: each tool as it is typed, and a held-back one left out of what can be used, named apart with why.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { Router } from '../../bot/router/router.js';
import { DEFAULT_TEST_TOOLS } from '../fakes/mcp/test-mcp-tools.js';
import { conversation, MCP_TEST_PERMISSIONS, type McpBot, McpKernelHarness } from './mcp-kernel-harness.js';

const WAIT = { timeout: 20_000, interval: 25 };
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
let harness: McpKernelHarness;
beforeEach(() => {
  harness = new McpKernelHarness();
});
afterEach(async () => harness.close());

async function ask(bot: McpBot, text: string): Promise<string> {
  const router = new Router({
    kernel: bot.kernel,
    settings: SettingsSchema.parse({ permissions: MCP_TEST_PERMISSIONS }),
    logger: silent,
    clock: harness.clock,
  });
  const reply = await router.handle({
    kind: 'command',
    eventId: `c${Math.random()}`,
    principal: harness.person(),
    conversation,
    text,
  });
  return reply.ephemeral ?? '';
}

describe('MCP tools in /ops help and permissions', () => {
  it('lists each MCP tool with its arguments, and a held-back one apart, with why', async () => {
    const bot = await harness.start();
    const before = await ask(bot, 'help');
    expect(before).toContain('• `test__echo text=…` — ');
    expect(before).not.toContain('Switched off now');

    harness.writeTools({
      tools: DEFAULT_TEST_TOOLS.tools.map((tool) =>
        tool.name === 'echo' ? { ...tool, description: 'Answers, changed' } : tool,
      ),
    });
    await expect
      .poll(() => bot.kernel.registry.available().map((tool) => tool.name), WAIT)
      .not.toContain('test__echo');
    const help = await ask(bot, 'help');
    const usable = help.split('Switched off now:')[0]!;
    expect(usable).not.toContain('test__echo');
    expect(usable).toContain('test__drop_table');
    expect(help).toContain(
      'Switched off now:\n• `test__echo` — test__echo changed since it was trusted (description); an admin must review it: opsbot mcp diff test',
    );
    const permissions = await ask(bot, 'permissions');
    expect(permissions).toMatch(/^Tools you can use here: (?!.*test__echo).*$/m);
    expect(permissions).toContain('Switched off now: test__echo: test__echo changed since it was trusted');
  });
});
