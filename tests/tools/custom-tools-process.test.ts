// A custom tools folder outside the checkout, as an operator keeps one (/etc/opsbot/tools): its TypeScript loads
// as ES modules through the real `opsbot` command, whatever package the folder sits in. Outside a "type": "module"
// package it used to be read as CommonJS: top-level await failed, and on Node 20 and 22 so did its imports.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnvironment, runCliProcess } from '../cli/cli-process.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';

afterAll(removeTempDirs);

// Outside the checkout, bare imports do not resolve: the tool imports opsbot and zod by file URL.
const agentTool = pathToFileURL(resolve('agent/tool.js')).href;
const zod = pathToFileURL(resolve('node_modules/zod/index.js')).href;

const QUEUE_TOOL = `
import { z } from '${zod}';
import { defineTool } from '${agentTool}';
import { queueNames } from './lib/queue-names.js';

// Read once at import, as a tool might read its own settings file.
const depths: Record<string, number> = await Promise.resolve({ emails: 3, exports: 0 });

export const queueDepth = defineTool({
  name: 'queue_depth',
  description: 'Reports how many jobs wait in a queue. Use this when asked about backlog. Do not use it for history.',
  input: z.object({ queue: z.enum(queueNames) }),
  risk: 'read',
  async execute(_ctx, { queue }) {
    return { ok: true, summary: \`\${queue} has \${depths[queue]} jobs waiting\` };
  },
});
`;

const QUEUE_NAMES = `export const queueNames = ['emails', 'exports'] as const;\n`;

describe('a custom tools folder outside the checkout', () => {
  it.each([
    ['no package.json', undefined],
    ['a CommonJS package', '{ "name": "our-tools", "type": "commonjs" }\n'],
  ])('loads its TypeScript as ES modules, in %s', async (_, packageJson) => {
    const dir = await makeTempDir('opsbot-outside-tools-');
    await mkdir(join(dir, 'tools/lib'), { recursive: true });
    await writeFile(join(dir, 'tools/queue-depth.ts'), QUEUE_TOOL);
    // A helper in a subfolder, which is not loaded as tools itself.
    await writeFile(join(dir, 'tools/lib/queue-names.ts'), QUEUE_NAMES);
    if (packageJson) await writeFile(join(dir, 'package.json'), packageJson);
    await writeFile(join(dir, 'opsbot.yaml'), `tools:\n  custom_tools_dir: ${join(dir, 'tools')}\n`);

    const result = await runCliProcess(
      ['run', 'queue_depth queue=emails'],
      cliEnvironment({
        OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
        OPSBOT_DATA_DIR: join(dir, 'data'),
        OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
      }),
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('emails has 3 jobs waiting');
    expect(result.code).toBe(0);
  });
});
