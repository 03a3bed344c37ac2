// The double-click race across two processes, on one SQLite file and on one Redis: each click takes the run's
// lease, so exactly one decides, the other is told who did, and the approved call runs once.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { runTask } from '../kernel/harness.js';
import { type ApprovalHarness, createApprovalHarness } from './approval-harness.js';

interface ChildClick {
  message: string;
  settled: boolean;
  kind: string;
}

let h: ApprovalHarness;
afterEach(async () => h?.close());

/** One Approve click from each of two child processes, released together. */
async function raceTwoProcesses(approvalId: string, people: string[]): Promise<ChildClick[]> {
  const script = new URL('./approval-click-child.ts', import.meta.url).pathname;
  const { url, prefix } = h.location;
  const children = people.map((person) =>
    spawn(
      process.execPath,
      ['--import', 'tsx', script, url, prefix, approvalId, person, String(h.clock.now())],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    ),
  );
  const lines = children.map((child) => createInterface({ input: child.stdout! })[Symbol.asyncIterator]());
  for (const line of lines) expect((await line.next()).value).toBe('ready');
  for (const child of children) child.stdin!.write('go\n');
  const results = await Promise.all(
    lines.map(async (line) => JSON.parse(String((await line.next()).value)) as ChildClick),
  );
  await Promise.all(children.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)));
  return results;
}

describe.each(['sqlite', 'redis'] as const)('two processes clicking Approve at once, on %s', (backend) => {
  it('make exactly one decision; the other is told who made it; the call runs once', async () => {
    h = await createApprovalHarness(backend);
    h.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    const run = await runTask(h.kernel, {
      text: 'restart the api',
      principal: h.person('alice'),
      conversation: { platform: 'playground', channelId: 'ops', threadId: `race-${backend}` },
    });
    if (run.status !== 'waiting_for_approval') throw new Error(`the run is ${run.status}`);

    const results = await raceTwoProcesses(run.approval.approvalId, ['bob', 'dave']);
    const decided = results.filter((result) => result.kind === 'decided');
    expect(decided).toHaveLength(1);
    expect(decided[0]!.settled).toBe(true);
    const winner = decided[0]!.message.match(/^Approved by (\w+) at /)?.[1];
    expect(winner).toMatch(/^(Bob|Dave)$/);
    const loser = results.find((result) => result.kind !== 'decided')!;
    expect(loser).toMatchObject({ kind: 'already_decided', settled: false });
    expect(loser.message).toMatch(new RegExp(`^Already approved by ${winner} at `));

    // The children ran no worker: this process takes the approved run up, and runs the call once.
    h.fake.reply(text('Restarted the api.'));
    await h.kernel.recover();
    expect((await h.kernel.settled(run.id)).status).toBe('finished');
    expect(h.probe.count('restart_service')).toBe(1);
  });
});
