// Loading the user's own tools from a folder: good modules load, broken ones fail with the file named.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCustomTools } from '../../tools/load-custom-tools.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';
import { callTool } from './helpers/tool-context.js';

afterAll(removeTempDirs);

// Modules in a temp folder cannot resolve bare imports, so they import opsbot and zod by file URL.
const agentTool = pathToFileURL(resolve('agent/tool.ts')).href;
const zod = pathToFileURL(resolve('node_modules/zod/index.js')).href;

const goodModule = `
import { z } from '${zod}';
import { defineTool } from '${agentTool}';

export const deployInfo = defineTool({
  name: 'deploy_info',
  description: 'Reports the deployed version. Use this when asked what runs. Do not use it to deploy.',
  input: z.object({ service: z.string() }),
  risk: 'read',
  async execute(_ctx, input) {
    return { ok: true, summary: \`\${input.service} runs 1.2.3.\`, data: { version: '1.2.3' } };
  },
});
export const notATool = 42;
`;

const secondModule = `
import { z } from '${zod}';
import { defineTool } from '${agentTool}';
export default defineTool({
  name: 'queue_depth',
  description: 'Reports queue depth. Use this when jobs are slow. Do not use it to purge queues.',
  input: z.object({}),
  risk: 'read',
  async execute() {
    return { ok: true, summary: 'The queue holds 3 jobs.' };
  },
});
`;

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await makeTempDir('opsbot-custom-');
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe('loadCustomTools', () => {
  it('loads every tool exported by the modules, in file name order, skipping types and tests', async () => {
    const dir = await folder({
      'b-queue.mjs': secondModule,
      'a-deploy.ts': goodModule,
      'types.d.ts': 'export type X = number;',
      'a-deploy.test.ts': 'throw new Error("tests are not tools")',
      'README.md': '# not a module',
    });
    const loaded = await loadCustomTools(dir);
    expect(loaded.map((entry) => [entry.tool.name, entry.file])).toEqual([
      ['deploy_info', join(dir, 'a-deploy.ts')],
      ['queue_depth', join(dir, 'b-queue.mjs')],
    ]);
    const result = await callTool(loaded[0]!.tool, { service: 'api' });
    expect(result).toEqual({ ok: true, summary: 'api runs 1.2.3.', data: { version: '1.2.3' } });
  });

  it('names each broken file in one error', async () => {
    const dir = await folder({
      'good.ts': goodModule,
      'broken.ts': 'export const x = ;',
      'throws.mjs': 'throw new Error("database not reachable at import");',
      'empty.js': 'export const nothing = 1;',
    });
    const error = await loadCustomTools(dir).then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(error?.message).toContain(`custom tools in ${dir} failed to load`);
    expect(error?.message).toContain(join(dir, 'broken.ts'));
    expect(error?.message).toContain(`${join(dir, 'throws.mjs')}: database not reachable at import`);
    expect(error?.message).toContain(`${join(dir, 'empty.js')}: exports no tool`);
    expect(error?.message).not.toContain('good.ts');
  });

  it('re-checks exported definitions, so a bad name fails at start-up', async () => {
    const dir = await folder({
      'bad-name.mjs': `
        import { z } from '${zod}';
        export const tool = { name: 'Bad-Name', description: 'x'.repeat(20), input: z.object({}), risk: 'read', execute: async () => ({ ok: true, summary: '' }) };
      `,
    });
    await expect(loadCustomTools(dir)).rejects.toThrow(/bad-name\.mjs: tool "Bad-Name": the name must match/);
  });

  it('says which folder it could not read', async () => {
    await expect(loadCustomTools('/nonexistent/opsbot-tools')).rejects.toThrow(
      /tools\.custom_tools_dir: cannot read \/nonexistent\/opsbot-tools/,
    );
  });
});
