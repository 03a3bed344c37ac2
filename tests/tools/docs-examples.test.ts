// The YAML examples in docs/tools.md are valid settings and build the tools they describe.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { silentLogger } from '../../agent/logger.js';
import { createOpsTools } from '../../tools/index.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';

async function examples(): Promise<{ text: string; tools: unknown }[]> {
  const markdown = await readFile(new URL('../../docs/tools.md', import.meta.url), 'utf8');
  return [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .filter((text) => !text.includes('<name>:')) // the format reference, not an example
    .map((text) => ({ text, tools: (parse(text) as { tools: unknown }).tools }));
}

describe('docs/tools.md examples', () => {
  it('parse as tool settings and build every command they define', async () => {
    const blocks = await examples();
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const built: string[] = [];
    for (const block of blocks) {
      const settings = ToolSettingsSchema.parse(block.tools);
      // Programs the example allows but this machine lacks are kept (with a warning), so this runs anywhere.
      // The Prometheus example takes its bearer token from the environment, as opsbot would at start-up.
      const environment = { PROM_TOKEN: 'example-token' };
      const tools = await createOpsTools(settings, { logger: silentLogger, environment });
      built.push(...tools.map((tool) => tool.name).filter((name) => Object.hasOwn(settings.commands, name)));
    }
    expect(built).toEqual([
      'service_status',
      'restart_service',
      'journal_tail',
      'journal_since',
      'kubectl_pods',
      'kubectl_logs',
      'kubectl_rollout_restart',
      'docker_ps',
      'docker_logs',
      'docker_restart',
    ]);
  });

  it('describe every example command in three parts', async () => {
    for (const block of await examples()) {
      const settings = ToolSettingsSchema.parse(block.tools);
      for (const [name, command] of Object.entries(settings.commands)) {
        expect(command.description, name).toMatch(/Use this/);
        expect(command.description, name).toMatch(/Do not\s+use/);
      }
    }
  });
});
