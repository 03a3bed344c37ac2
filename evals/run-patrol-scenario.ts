// Runs a patrol scenario: its world, opsbot and the real patrol service, then one scheduled tick per round (after
// the round's world changes), keeping what each round posted to the chat; judged by patrol-judge.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PatrolReportMessage } from '../agent/chat-port.js';
import { systemClock } from '../agent/clock.js';
import { silentLogger } from '../agent/logger.js';
import type { Run } from '../agent/run.js';
import { ChatPortByPlatform } from '../bot/chat-port-by-platform.js';
import type { Opsbot } from '../bot/compose.js';
import { createPatrols } from '../bot/services/patrol-service.js';
import type { PatrolService } from '../scheduled/patrol-service.js';
import { RecordingChatPort } from '../tests/fakes/recording-chat-port.js';
import { scriptedModel } from './model-script.js';
import { judgePatrol, type PostedReport, type RoundOutcome } from './patrol-judge.js';
import { composeScenarioOpsbot } from './scenario-opsbot.js';
import { type ModelMode, type ScenarioResult, skippedResult } from './scenario-result.js';
import type { Scenario } from './schema.js';
import { type RunningWorld, startWorld } from './world.js';

/** One patrol run takes well under a second here (tool time limits are seconds); longer than this is stuck. */
const ROUND_TIMEOUT_MS = 30_000;
/** Each round is the next slot of a once-a-minute clock: slots only move forward, and each is claimed once. */
const SLOT_GAP_MS = 60_000;

function withinRoundTimeout<T>(work: Promise<T>, round: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`round ${round} did not settle within ${ROUND_TIMEOUT_MS} ms`)),
      ROUND_TIMEOUT_MS,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The patrol reports a recording holds from post `from` on, and the updates made since `updatesBefore`. */
function roundPosts(recorder: RecordingChatPort, from: number, updatesBefore: number[]) {
  const posted: PostedReport[] = [];
  let other = 0;
  for (const post of recorder.posts.slice(from)) {
    if (post.message.kind === 'patrol_report')
      posted.push({ ...post.message, inThread: post.conversation.threadId !== undefined });
    else other += 1;
  }
  const updated = recorder.posts.flatMap((post, index) =>
    post.updates
      .slice(index < from ? (updatesBefore[index] ?? 0) : 0)
      .filter((message): message is PatrolReportMessage => message.kind === 'patrol_report'),
  );
  return { posted, updated, otherMessages: other };
}

function resultOf(scenario: Scenario, reasons: string[], runs: Run[], rounds: number, wallMs: number) {
  const result: ScenarioResult = {
    name: scenario.name,
    group: scenario.group,
    mode: 'scripted',
    sent: [],
    passed: reasons.length === 0,
    reasons,
    status: runs.length === rounds ? 'finished' : `ran ${runs.length} of ${rounds} rounds`,
    steps: runs.reduce((sum, run) => sum + run.step, 0),
    modelCalls: runs.reduce((sum, run) => sum + run.usage.modelCalls, 0),
    toolCalls: runs.reduce((sum, run) => sum + run.usage.toolCalls, 0),
    promptTokens: runs.reduce((sum, run) => sum + run.usage.promptTokens, 0),
    completionTokens: runs.reduce((sum, run) => sum + run.usage.completionTokens, 0),
    wallMs,
  };
  return result;
}

export async function runPatrolScenario(scenario: Scenario, mode: ModelMode): Promise<ScenarioResult> {
  const block = scenario.patrol;
  if (!block) throw new Error(`scenario ${scenario.name} has no patrol: block`);
  if (mode.kind !== 'scripted')
    return skippedResult(scenario, mode, 'a patrol asks no model; run it scripted');
  let started = performance.now();
  const model = await scriptedModel(scenario.model, {});
  const dataDir = mkdtempSync(join(tmpdir(), 'opsbot-eval-'));
  // One recording behind every platform, so a patrol may post to playground:, slack: or discord: channels.
  const recorder = new RecordingChatPort();
  const chat = new ChatPortByPlatform();
  for (const platform of ['playground', 'slack', 'discord'] as const) chat.register(platform, recorder);
  const runs: Run[] = [];
  let world: RunningWorld | undefined;
  let opsbot: Opsbot | undefined;
  let patrols: PatrolService | undefined;
  try {
    world = await startWorld(scenario.world);
    ({ opsbot } = await composeScenarioOpsbot(scenario, { world, model, dataDir, chat }));
    patrols = createPatrols(opsbot, chat, silentLogger, systemClock, {
      schedule: true,
      selfUrl: () => 'http://127.0.0.1:3000',
    });
    patrols?.prepare();
    if (!patrols?.running().includes(block.name))
      throw new Error(`settings.patrols has no patrol ${block.name}`);
    started = performance.now();
    const firstSlot = Math.ceil(Date.now() / SLOT_GAP_MS) * SLOT_GAP_MS;
    const rounds: RoundOutcome[] = [];
    for (const [index, round] of block.rounds.entries()) {
      for (const [target, change] of Object.entries(round.world?.http ?? {}))
        world.changeHttp(target, change);
      const from = recorder.posts.length;
      const updatesBefore = recorder.posts.map((post) => post.updates.length);
      const historyBefore = (await patrols.repository.history(block.name)).length;
      const ticked = await withinRoundTimeout(
        patrols.tick(block.name, firstSlot + index * SLOT_GAP_MS),
        index + 1,
      );
      const history = await patrols.repository.history(block.name);
      const entry = history.length > historyBefore ? history.at(-1) : undefined;
      if (entry?.runId) runs.push(await opsbot.kernel.get(entry.runId));
      const problem = ticked !== 'ran' ? `the patrol did not run (${ticked})` : entry?.problem;
      rounds.push({ ...roundPosts(recorder, from, updatesBefore), ...(problem ? { problem } : {}) });
    }
    const wallMs = Math.round(performance.now() - started);
    const reasons = judgePatrol(block, scenario.expect.never_shown, {
      rounds,
      modelRequests: model.requests().map((request) => request.rawBody),
      chatMessages: recorder.posts.map((post) => JSON.stringify([post.message, ...post.updates])),
    });
    return resultOf(scenario, reasons, runs, block.rounds.length, wallMs);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const wallMs = Math.round(performance.now() - started);
    return resultOf(scenario, [`could not run: ${message}`], runs, block.rounds.length, wallMs);
  } finally {
    await patrols?.stop();
    await opsbot?.close();
    await world?.close();
    await model.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
