// createOpsTools: the built-in pack, configured commands and custom tools together, with unique names and docs.
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { toolParametersSchema } from '../../agent/tool.js';
import { createOpsTools } from '../../tools/index.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';

afterAll(removeTempDirs);

const BUILT_IN = [
  'http_check',
  'tcp_check',
  'dns_lookup',
  'tls_certificate',
  'disk_usage',
  'system_stats',
  'process_check',
  'log_search',
];

const echoCommand = {
  description: 'Echoes a word back. Use this when testing the bot. Do not use it for anything else.',
  argv: ['/usr/bin/echo', '{word}'],
  parameters: { word: { description: 'The word', pattern: '[a-z]+' } },
};

async function customToolsDir(name: string): Promise<string> {
  const dir = await makeTempDir('opsbot-custom-');
  await writeFile(
    join(dir, 'tool.mjs'),
    `import { z } from '${pathToFileURL(resolve('node_modules/zod/index.js')).href}';
import { defineTool } from '${pathToFileURL(resolve('agent/tool.ts')).href}';
export const custom = defineTool({
  name: '${name}',
  description: 'A custom tool for tests. Use this when testing. Do not use it otherwise.',
  input: z.object({}),
  risk: 'read',
  async execute() { return { ok: true, summary: 'done' }; },
});
`,
  );
  return dir;
}

/** The Prometheus and Alertmanager tools exist only with their servers' URLs set. */
const WITH_MONITORING = ToolSettingsSchema.parse({
  prometheus: { url: 'http://127.0.0.1:9090' },
  alertmanager: { url: 'http://127.0.0.1:9093' },
});

describe('createOpsTools', () => {
  it('returns the eight built-in tools with default settings', async () => {
    const tools = await createOpsTools(ToolSettingsSchema.parse({}));
    expect(tools.map((tool) => tool.name)).toEqual(BUILT_IN);
    expect(tools.every((tool) => tool.risk === 'read')).toBe(true);
  });

  it('gives every built-in tool a description in three parts: what it does, when to use it, when not to', async () => {
    for (const tool of await createOpsTools(WITH_MONITORING)) {
      const text = tool.description;
      expect(text, tool.name).toMatch(/^[A-Z][a-z]+s /); // opens by saying what it does: "Reports ...", "Finds ..."
      expect(text, tool.name).toMatch(/\bUse (this|it) when\b/);
      expect(text, tool.name).toMatch(/\bDo not use (this|it)\b/);
      expect(text, tool.name).toMatch(/Result data:/);
      expect(text.indexOf('Use this when'), tool.name).toBeLessThan(text.indexOf('Do not use'));
    }
  });

  it('describes every input as a JSON Schema object with a bounded timeout_ms', async () => {
    for (const tool of await createOpsTools(WITH_MONITORING)) {
      const schema = toolParametersSchema(tool.input);
      const timeout = (schema.properties as Record<string, { maximum?: number }>).timeout_ms;
      expect(timeout?.maximum, tool.name).toBeLessThanOrEqual(120_000);
      expect(schema.additionalProperties, tool.name).toBe(false);
      for (const [key, property] of Object.entries(
        schema.properties as Record<string, { description?: string }>,
      )) {
        expect(property.description, `${tool.name}.${key}`).toBeTruthy();
      }
    }
  });

  it('adds configured commands and custom tools after the built-in ones', async () => {
    const settings = ToolSettingsSchema.parse({
      commands: { echo_word: echoCommand },
      allowed_executables: ['/usr/bin/echo'],
      custom_tools_dir: await customToolsDir('my_custom_check'),
    });
    const tools = await createOpsTools(settings);
    expect(tools.map((tool) => tool.name)).toEqual([...BUILT_IN, 'echo_word', 'my_custom_check']);
  });

  it('refuses two tools with the same name, naming both', async () => {
    const clashWithBuiltIn = ToolSettingsSchema.parse({
      commands: { http_check: echoCommand },
      allowed_executables: ['/usr/bin/echo'],
    });
    await expect(createOpsTools(clashWithBuiltIn)).rejects.toThrow(
      /two tools are named http_check: the built-in tool and tools\.commands\.http_check/,
    );
    const dir = await customToolsDir('echo_word');
    const clashWithCommand = ToolSettingsSchema.parse({
      commands: { echo_word: echoCommand },
      allowed_executables: ['/usr/bin/echo'],
      custom_tools_dir: dir,
    });
    await expect(createOpsTools(clashWithCommand)).rejects.toThrow(
      `two tools are named echo_word: tools.commands.echo_word and ${join(dir, 'tool.mjs')}`,
    );
  });

  it('names the settings key at fault', async () => {
    const notAllowed = ToolSettingsSchema.parse({ commands: { echo_word: echoCommand } });
    await expect(createOpsTools(notAllowed)).rejects.toThrow(
      /tools\.commands\.echo_word\.argv\[0\]: \/usr\/bin\/echo is not in allowed_executables/,
    );
    const badName = ToolSettingsSchema.parse({
      commands: { 'Echo-Word': echoCommand },
      allowed_executables: ['/usr/bin/echo'],
    });
    await expect(createOpsTools(badName)).rejects.toThrow(
      /tools\.commands\.Echo-Word: tool "Echo-Word": the name must match/,
    );
    const relative = ToolSettingsSchema.parse({ allowed_executables: ['echo'] });
    await expect(createOpsTools(relative)).rejects.toThrow(
      /tools\.allowed_executables: .* must be an absolute path/,
    );
    // The schema refuses a bad network entry itself; createOpsTools still checks settings built by hand.
    expect(() => ToolSettingsSchema.parse({ network: { deny: ['10.0.0.0/40'] } })).toThrow(/not a host name/);
    const badNetwork = { ...ToolSettingsSchema.parse({}), network: { allow: [], deny: ['10.0.0.0/40'] } };
    await expect(createOpsTools(badNetwork)).rejects.toThrow(/tools\.network: network\.deny/);
    const badDns = ToolSettingsSchema.parse({ dns_servers: ['not a server'] });
    await expect(createOpsTools(badDns)).rejects.toThrow(/tools\.dns_servers/);
  });
});
