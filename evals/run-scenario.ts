// Runs one scenario end to end: its world, opsbot composed from its settings, the scripted model and the person.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Run } from '../agent/run.js';
import type { Opsbot } from '../bot/compose.js';
import { startFakeOpenAIServer } from '../tests/fakes/openai-server.js';
import { RecordingChatPort } from '../tests/fakes/recording-chat-port.js';
import { judge } from './judge.js';
import { approvalsOf, questionsOf, type ScenarioOutcome, toolCallsOf } from './outcome.js';
import { conversationFor, principalFor } from './people.js';
import { respondTo } from './person.js';
import { runPatrolScenario } from './run-patrol-scenario.js';
import { composeScenarioOpsbot } from './scenario-opsbot.js';
import type { Scenario } from './schema.js';
import { fillText } from './template.js';
import { type RunningWorld, startWorld } from './world.js';

/** More questions and clicks than this in one scenario is a loop, not a conversation. */
const MAX_PERSON_MOVES = 20;
/** A scripted scenario settles in well under a second; one that has not after this is stuck. */
const SETTLE_TIMEOUT_MS = 30_000;

function withinTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not settle within ${SETTLE_TIMEOUT_MS} ms`)),
      SETTLE_TIMEOUT_MS,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export interface ScenarioResult {
  name: string;
  group: string;
  passed: boolean;
  reasons: string[];
  status: string;
  steps: number;
  toolCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** From the task's start until the run settled for the last time (world and start-up not counted). */
  wallMs: number;
}

function resultOf(
  scenario: Scenario,
  reasons: string[],
  run: Run | undefined,
  wallMs: number,
): ScenarioResult {
  return {
    name: scenario.name,
    group: scenario.group,
    passed: reasons.length === 0,
    reasons,
    status: run?.status ?? 'not started',
    steps: run?.step ?? 0,
    toolCalls: run?.usage.toolCalls ?? 0,
    promptTokens: run?.usage.promptTokens ?? 0,
    completionTokens: run?.usage.completionTokens ?? 0,
    wallMs,
  };
}

export async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  if (scenario.patrol) return runPatrolScenario(scenario);
  let started = performance.now();
  const fake = await startFakeOpenAIServer();
  const dataDir = mkdtempSync(join(tmpdir(), 'opsbot-eval-'));
  const chat = new RecordingChatPort();
  let world: RunningWorld | undefined;
  let opsbot: Opsbot | undefined;
  try {
    world = await startWorld(scenario.world);
    const values = world.values;
    const composed = await composeScenarioOpsbot(scenario, { world, fake, dataDir, chat });
    ({ opsbot } = composed);
    const { settings, model } = composed;
    const { kernel } = opsbot;
    const principal = principalFor(scenario.who.identity, scenario.platform, settings);
    started = performance.now();
    const runId = await kernel.start({
      text: fillText(scenario.task ?? '', values),
      principal,
      conversation: conversationFor(scenario, principal),
    });
    let run = await withinTimeout(kernel.settled(runId), 'the run');
    const personNotes: string[] = [];
    for (let moves = 0; moves < MAX_PERSON_MOVES; moves++) {
      if (run.status !== 'waiting_for_user' && run.status !== 'waiting_for_approval') break;
      const move = await respondTo(run, scenario, kernel, settings);
      if (!move.acted) {
        personNotes.push(move.note);
        break;
      }
      run = await withinTimeout(kernel.settled(runId), 'the run');
    }
    const wallMs = Math.round(performance.now() - started);
    const outcome: ScenarioOutcome = {
      run,
      toolCalls: toolCallsOf(run),
      questions: questionsOf(run),
      approvalsRequested: approvalsOf(run),
      modelRequests: fake.requests.map((request) => request.rawBody),
      chatMessages: chat.posts.map((post) => JSON.stringify([post.message, ...post.updates])),
      unusedModelTurns: fake.pending(),
      unscriptedModelRequests: model.unscripted(),
      personNotes,
    };
    return resultOf(scenario, judge(scenario.expect, outcome), run, wallMs);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return resultOf(
      scenario,
      [`could not run: ${message}`],
      undefined,
      Math.round(performance.now() - started),
    );
  } finally {
    await opsbot?.close();
    await world?.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
