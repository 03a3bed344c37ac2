// The floor: the MCP SDK's own Client over its StdioClientTransport, calling `echo` with nothing around it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BrokenRunError } from '../runners/runner.js';
import { type McpCaller, TEST_SERVER_COMMAND } from './mcp-caller.js';

export async function startBareSdkCaller(): Promise<McpCaller> {
  const [command, ...args] = TEST_SERVER_COMMAND;
  const transport = new StdioClientTransport({ command: command!, args, stderr: 'inherit' });
  const client = new Client({ name: 'opsbot-bench-bare', version: '1.0.0' });
  await client.connect(transport);
  return {
    async call(text) {
      const result = await client.callTool({ name: 'echo', arguments: { text } });
      const content = result.content as { type: string; text?: string }[];
      if (result.isError || content[0]?.text !== text) {
        throw new BrokenRunError(`bare-sdk: echo of ${text} came back as ${JSON.stringify(result)}`);
      }
    },
    close: () => client.close(),
  };
}
