// opsbot's MCP tool without the kernel: McpToolSource started from settings as the bot starts it (connection,
// listing, names, risk, pins on a MemoryStore), then per call what the kernel would do around the tool's own
// execute: its input schema, execute (the call through opsbot's connection and the result's mapping), the result
// checked and redacted. No policy, no run, no store writes per call.
import { silentLogger } from '../../agent/logger.js';
import { Redactor } from '../../agent/redaction.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { type ToolContext, ToolResultSchema } from '../../agent/tool.js';
import { McpSettingsSchema } from '../../tools/mcp/mcp-settings.js';
import { startMcpTools } from '../../tools/mcp/start-mcp-tools.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { BrokenRunError } from '../runners/runner.js';
import { BENCH_PRINCIPAL } from '../scripted-run.js';
import { type McpCaller, TEST_SERVER_COMMAND } from './mcp-caller.js';

const TIMEOUT_MS = 20_000;

export async function startOpsbotToolCaller(): Promise<McpCaller> {
  const store = new MemoryStore();
  const source = await startMcpTools(
    {
      mcp: McpSettingsSchema.parse({ servers: { test: { command: TEST_SERVER_COMMAND } } }),
      tools: ToolSettingsSchema.parse({}),
    },
    { store, logger: silentLogger, takenNames: [] },
  );
  const tool = source?.tools().find((candidate) => candidate.name === 'test__echo');
  if (!source || !tool) throw new BrokenRunError('opsbot-tool: the test server offered no test__echo');
  const redactor = new Redactor();
  let calls = 0;
  return {
    async call(text) {
      const controller = new AbortController();
      const context: ToolContext = {
        signal: controller.signal,
        deadline: Date.now() + TIMEOUT_MS,
        timeoutMs: TIMEOUT_MS,
        logger: silentLogger,
        principal: BENCH_PRINCIPAL,
        conversation: { platform: 'cli', channelId: 'bench', threadId: 'mcp' },
        runId: `bench-${++calls}`,
      };
      const returned = await tool.execute(context, tool.input.parse({ text }));
      const result = redactor.redactValue(ToolResultSchema.parse(returned));
      if (!result.ok || !result.summary.endsWith(text)) {
        throw new BrokenRunError(`opsbot-tool: echo of ${text} came back as ${JSON.stringify(result)}`);
      }
    },
    async close() {
      await source.close();
      await store.close();
    },
  };
}
