// Builds a kernel wired to the fake OpenAI server, a real store and test tools, for the kernel tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import type { KernelOptions } from '../../agent/kernel-options.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import type { TaskInput } from '../../agent/new-run.js';
import { requesterOrAdmin } from '../../agent/policy/run-authority.js';
import type { Principal } from '../../agent/principal.js';
import type { PendingApproval, Question, Run } from '../../agent/run.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import type { Store } from '../../agent/store/store.js';
import { defineTool, type Tool } from '../../agent/tool.js';
import type { ToolPolicy } from '../../agent/tool-policy.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fakes/openai-server.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';

export const alice: Principal = {
  platform: 'cli',
  userId: 'alice',
  displayName: 'Alice',
  roles: ['operator'],
  groups: [],
};
export const bob: Principal = {
  platform: 'cli',
  userId: 'bob',
  displayName: 'Bob',
  roles: ['viewer'],
  groups: [],
};
export const conversation = { platform: 'cli' as const, channelId: 'terminal', threadId: 't1' };

/** Counts calls and concurrency, so tests can see what ran and how. */
export class ToolProbe {
  calls: { tool: string; args: unknown }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  async track<T>(tool: string, args: unknown, work: () => Promise<T>): Promise<T> {
    this.calls.push({ tool, args });
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      return await work();
    } finally {
      this.inFlight -= 1;
    }
  }
  count(tool: string): number {
    return this.calls.filter((call) => call.tool === tool).length;
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

export function testTools(probe: ToolProbe): Tool[] {
  return [
    defineTool({
      name: 'check_http',
      description: 'Check a URL. Use when asked whether a site is up. Do not use for TCP ports.',
      input: z.object({ url: z.string().describe('The URL to check') }),
      risk: 'read',
      execute: (_ctx, input) =>
        probe.track('check_http', input, async () => {
          await tick();
          await tick();
          return { ok: true, summary: `${input.url} answered 200`, data: { status: 200 } };
        }),
    }),
    defineTool({
      name: 'read_logs',
      description: 'Read log lines. Use when asked about errors. Do not use for metrics.',
      input: z.object({ service: z.string().describe('The service whose logs to read') }),
      risk: 'read',
      execute: (_ctx, input) =>
        probe.track('read_logs', input, async () => ({
          ok: true,
          summary: `3 lines from ${input.service}`,
          data: { lines: [`token xoxb-123456789012-abcdefghijkl in ${input.service}`] },
        })),
    }),
    defineTool({
      name: 'restart_service',
      description: 'Restart a service. Use when a service is stuck. Do not use to deploy.',
      input: z.object({ service: z.enum(['api', 'worker']).describe('Which service to restart') }),
      risk: 'danger',
      execute: (_ctx, input) =>
        probe.track('restart_service', input, async () => ({
          ok: true,
          summary: `restarted ${input.service}`,
        })),
    }),
    defineTool({
      name: 'write_note',
      description: 'Write a note. Use when asked to record something. Do not use for secrets.',
      input: z.object({ text: z.string().describe('The note') }),
      risk: 'write',
      execute: (_ctx, input) =>
        probe.track('write_note', input, async () => ({ ok: true, summary: 'noted' })),
    }),
    defineTool({
      name: 'flaky',
      description: 'Always throws. Use when testing failures. Do not use otherwise.',
      input: z.object({ n: z.number().optional() }),
      risk: 'read',
      execute: (_ctx, input) =>
        probe.track('flaky', input, async () => {
          throw new Error('connection reset by peer');
        }),
    }),
    defineTool({
      name: 'never_returns',
      description: 'Never returns. Use when testing timeouts. Do not use otherwise.',
      input: z.object({}),
      risk: 'read',
      execute: (_ctx, input) => probe.track('never_returns', input, () => new Promise(() => {})),
    }),
  ];
}

export interface Harness {
  fake: FakeOpenAIServer;
  chat: RecordingChatPort;
  probe: ToolProbe;
  clock: ManualClock;
  store: Store;
  kernel: Kernel;
  /** A second kernel over the same store, as a new process would build it. */
  newKernel(overrides?: Partial<KernelOptions>): Kernel;
  close(): Promise<void>;
}

export async function createHarness(
  options: { store?: 'memory' | 'sqlite'; model?: boolean; kernel?: Partial<KernelOptions> } = {},
): Promise<Harness> {
  const fake = await startFakeOpenAIServer();
  const chat = new RecordingChatPort();
  const probe = new ToolProbe();
  const clock = new ManualClock();
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-kernel-'));
  const stores: Store[] = [];
  const openStore = (): Store => {
    const store =
      options.store === 'sqlite' ? new SqliteStore(join(dir, 'opsbot.sqlite'), { clock }) : sharedMemory;
    stores.push(store);
    return store;
  };
  const sharedMemory = new MemoryStore(clock);
  const store = openStore();
  const build = (overrides: Partial<KernelOptions> = {}) =>
    new Kernel({
      store: overrides.store ?? (options.store === 'sqlite' ? openStore() : store),
      tools: testTools(probe),
      ...(options.model === false
        ? {}
        : {
            model: createOpenAIModelClient({
              baseURL: fake.baseURL,
              apiKey: 'sk-test',
              model: 'fake-model',
              timeoutMs: 2_000,
              maxRetries: 2,
              clock,
            }),
          }),
      chat,
      clock,
      // Tests move the clock by minutes inside one step, while the lease heartbeat runs on real timers.
      runLeaseMs: 5 * 60_000,
      limits: { toolTimeoutMs: 200 },
      ...options.kernel,
      ...overrides,
    });
  const kernel = build({ store });
  return {
    fake,
    chat,
    probe,
    clock,
    store,
    kernel,
    newKernel: build,
    async close() {
      await fake.close();
      for (const opened of stores) await opened.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The tool messages the model received in a recorded request. */
export function toolMessages(body: { messages?: { role: string; content?: string | null }[] }): unknown[] {
  return (body.messages ?? [])
    .filter((message) => message.role === 'tool')
    .map((message) => JSON.parse(message.content ?? 'null'));
}

/** A run as tests read it: whatever its status, the end fields are optional to read. */
export type TestRun = Run &
  Partial<{
    answer: string;
    ok: boolean;
    error: { code: string; message: string };
    question: Question;
    approval: PendingApproval;
    cancelled: { by: string; at: number };
    expired: { message: string; at: number };
  }>;

/** Starts a task and waits until the kernel's worker has taken it as far as it goes without a person. */
export async function runTask(kernel: Kernel, task: TaskInput): Promise<TestRun> {
  return kernel.settled(await kernel.start(task)) as Promise<TestRun>;
}

/** Answers a run's question and waits, like runTask. */
export async function answerRun(
  kernel: Kernel,
  runId: string,
  text: string,
  who: Principal,
): Promise<TestRun> {
  await kernel.answer(runId, text, who);
  return kernel.settled(runId) as Promise<TestRun>;
}

/** Every call allowed, and nobody an admin: only the requester may answer or cancel a run. */
export function noAdminPolicy(): ToolPolicy {
  return {
    decide: () => ({ outcome: 'allow' }),
    visibleTools: (_principal, _conversation, tools) => [...tools],
    isAdmin: () => false,
    mayActOnRun: (principal, run, action) =>
      requesterOrAdmin(false, principal, run, action.kind === 'decide' ? 'status' : action.kind),
  };
}
