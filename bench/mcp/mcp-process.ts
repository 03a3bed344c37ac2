// Runs one MCP bench job in a new node process (the bundle with source maps, as opsbot ships, or the TypeScript
// source through tsx), so no runner inherits another's JIT, heap or modules; returns the figures it sent back.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BrokenRunError } from '../runners/runner.js';
import { type McpJob, type McpProcessFigures, McpReply } from './mcp-job.js';

const entry = fileURLToPath(new URL('./mcp-runner-process.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export async function measureMcpInFreshProcess(
  job: McpJob,
  bundle: string | null,
): Promise<McpProcessFigures> {
  const child = fork(bundle ?? entry, [JSON.stringify(job)], {
    // The test server's path is relative to the repository.
    cwd: repoRoot,
    execArgv: bundle ? ['--enable-source-maps'] : ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
  });
  let reply: unknown;
  child.once('message', (message) => {
    reply = message;
  });
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal }));
    },
  );
  if (reply === undefined) {
    throw new Error(
      `the ${job.runner} process ended (code ${exit.code}, signal ${exit.signal}) without its figures`,
    );
  }
  const parsed = McpReply.parse(reply);
  if (!parsed.ok) throw new BrokenRunError(parsed.error);
  return parsed.figures;
}
