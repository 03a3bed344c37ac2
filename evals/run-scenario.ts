// Runs one scenario end to end: its world, opsbot composed from its settings, the model (scripted, a cassette or
// live) and the person; then judges what happened and what the model was sent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Run } from '../agent/run.js';
import type { EngineKind } from '../agent/run-engine-kind.js';
import type { Opsbot } from '../bot/compose.js';
import { RecordingChatPort } from '../tests/fakes/recording-chat-port.js';
import { alertModeSettings, startAlertRun } from './alert-start.js';
import { cassetteModel } from './cassette-source.js';
import { judge } from './judge.js';
import { evidenceOf } from './judge-grounding.js';
import { type LiveModelSource, liveModel } from './live-model.js';
import { scriptedModel } from './model-script.js';
import type { ModelEndpoint, ModelSource } from './model-source.js';
import { OffsetClock } from './offset-clock.js';
import { answerOf, approvalsOf, questionsOf, type ScenarioOutcome, toolCallsOf } from './outcome.js';
import { conversationFor, principalFor } from './people.js';
import { respondTo } from './person.js';
import { judgeRubric, type RubricResult, rubricProblems } from './rubric-judge.js';
import { runPatrolScenario } from './run-patrol-scenario.js';
import { engineFor, lockKeyFor, scriptFor } from './scenario-engine.js';
import { composeScenarioOpsbot } from './scenario-opsbot.js';
import { type ModelMode, resultOf, type ScenarioResult, skippedResult } from './scenario-result.js';
import type { ModelTurn, Scenario } from './schema.js';
import { distinctFingerprints, type SentFingerprint } from './sent-fingerprint.js';
import { lockProblems, readLock } from './sent-lock.js';
import { mergeSettings } from './settings.js';
import { liveUser, type SimulatedUser, scriptedUser } from './simulated-user.js';
import { fillText } from './template.js';
import type { WeakenedSafety } from './weakened-safety.js';
import { type RunningWorld, startWorld } from './world.js';

/** More questions and clicks than this in one scenario is a loop, not a conversation. */
const MAX_PERSON_MOVES = 20;
/** A scripted scenario settles in well under a second; one that has not after this is stuck. */
const SETTLE_TIMEOUT_MS = 30_000;

function withinTimeout<T>(work: Promise<T>, what: string, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** A live model needs longer than a scripted one; a scenario's own limits still win. */
const LIVE_SETTINGS = { limits: { model_timeout: '120s', model_retries: 1 } };
const LIVE_SETTLE_TIMEOUT_MS = 10 * 60_000;

function modelFor(
  mode: ModelMode,
  script: ModelTurn[],
  values: Record<string, string>,
): Promise<ModelSource> {
  if (mode.kind === 'live') return liveModel(mode.target, values);
  if (mode.kind === 'cassette') return cassetteModel(mode.cassette, values, mode.where);
  return scriptedModel(script, values, {
    ...(mode.rewriteRequest ? { rewriteRequest: mode.rewriteRequest } : {}),
    ...(mode.delayMs ? { delayMs: mode.delayMs } : {}),
  });
}

/** Who answers the run's questions: the scenario's rules and facts, or in a live run the user model. */
function userFor(
  mode: ModelMode,
  scenario: Scenario,
  values: Record<string, string>,
  run: Run,
): SimulatedUser {
  if (mode.kind !== 'live') return scriptedUser(scenario, values);
  const task = run.events.find((event) => event.type === 'task_received');
  return liveUser(
    scenario,
    values,
    mode.user ?? mode.target,
    task?.type === 'task_received' ? task.text : '',
  );
}

function rubricFor(
  scenario: Scenario,
  outcome: ScenarioOutcome,
  judgeModel: ModelEndpoint | undefined,
): Promise<RubricResult | undefined> {
  if (!judgeModel || scenario.rubric.length === 0) return Promise.resolve(undefined);
  const task = outcome.run.events.find((event) => event.type === 'task_received');
  return judgeRubric(judgeModel, {
    task: task?.type === 'task_received' ? task.text : '',
    evidence: evidenceOf(outcome),
    answer: answerOf(outcome.run),
    rubric: scenario.rubric,
  });
}

function lockCheck(mode: ModelMode, key: string, sent: SentFingerprint[]): string[] {
  if (mode.kind !== 'scripted' || mode.lock === 'skip') return [];
  const lock = mode.lock ?? readLock();
  return lockProblems(key, lock[key], sent);
}

/** A person's task, typed in the scenario's channel. */
function startTask(
  scenario: Scenario,
  opsbot: Opsbot,
  values: Record<string, string>,
  engine: EngineKind | undefined,
): Promise<string> {
  const principal = principalFor(scenario.who.identity, scenario.platform, opsbot.settings);
  return opsbot.kernel.start({
    text: fillText(scenario.task ?? '', values),
    principal,
    conversation: conversationFor(scenario, principal),
    ...(engine ? { engine } : {}),
  });
}

export interface RunScenarioOptions {
  /** The LLM judge that grades the answer against the scenario's rubric; none when absent. */
  judge?: ModelEndpoint | undefined;
  /** Tests only: run with one safety rule switched off, to show the scenarios catch it. */
  weakened?: WeakenedSafety;
  /** The engine a task starts with (`--engine`); the kernel's own choice when absent. */
  engine?: EngineKind | undefined;
}

export async function runScenario(
  scenario: Scenario,
  mode: ModelMode = { kind: 'scripted' },
  options: RunScenarioOptions = {},
): Promise<ScenarioResult> {
  if (scenario.patrol) return runPatrolScenario(scenario, mode);
  if (mode.kind === 'live' && scenario.scripted_only !== undefined) {
    return skippedResult(scenario, mode, scenario.scripted_only);
  }
  const engine = engineFor(scenario, options.engine);
  const script = scriptFor(scenario, engine);
  if (mode.kind !== 'live' && script === undefined) {
    return skippedResult(scenario, mode, `no script for the ${engine} engine (scripts.${engine})`);
  }
  const lockKey = lockKeyFor(scenario, engine);
  let started = performance.now();
  const settleWithin = mode.kind === 'live' ? LIVE_SETTLE_TIMEOUT_MS : SETTLE_TIMEOUT_MS;
  const dataDir = mkdtempSync(join(tmpdir(), 'opsbot-eval-'));
  const chat = new RecordingChatPort();
  const clock = new OffsetClock();
  let world: RunningWorld | undefined;
  let model: ModelSource | undefined;
  let opsbot: Opsbot | undefined;
  let run: Run | undefined;
  let values: Record<string, string> = {};
  const sentSoFar = () =>
    distinctFingerprints(model?.requests().map((request) => request.body) ?? [], values);
  try {
    world = await startWorld(scenario.world);
    values = world.values;
    model = await modelFor(mode, script ?? [], values);
    const modeSettings = mergeSettings(
      mode.kind === 'live' ? LIVE_SETTINGS : {},
      scenario.alert ? alertModeSettings(scenario, engine) : {},
    );
    const composed = await composeScenarioOpsbot(scenario, {
      world,
      model,
      dataDir,
      chat,
      clock,
      modeSettings,
      weakened: options.weakened,
    });
    opsbot = composed.opsbot;
    const { settings } = composed;
    const { kernel } = opsbot;
    started = performance.now();
    const runId = scenario.alert
      ? await startAlertRun(scenario, { opsbot, chat, clock, values })
      : await startTask(scenario, opsbot, values, engine);
    run = await withinTimeout(kernel.settled(runId), 'the run', settleWithin);
    const user = userFor(mode, scenario, values, run);
    const personNotes: string[] = [];
    for (let moves = 0; moves < MAX_PERSON_MOVES; moves++) {
      if (run.status !== 'waiting_for_user' && run.status !== 'waiting_for_approval') break;
      const move = await respondTo(run, scenario, kernel, settings, clock, user);
      if (!move.acted) {
        personNotes.push(move.note);
        break;
      }
      run = await withinTimeout(kernel.settled(runId), 'the run', settleWithin);
    }
    const wallMs = Math.round(performance.now() - started);
    const requests = model.requests();
    const sent = sentSoFar();
    const outcome: ScenarioOutcome = {
      run,
      toolCalls: toolCallsOf(run),
      questions: questionsOf(run),
      approvalsRequested: approvalsOf(run),
      modelRequests: requests.map((request) => request.rawBody),
      chatMessages: chat.posts.map((post) => JSON.stringify([post.message, ...post.updates])),
      modelProblems: model.problems(),
      personNotes,
      worldRequests: world.requests,
      mcpCalls: world.mcp.calls(),
      approvalCards: chat.ofKind('approval'),
    };
    const rubric = await rubricFor(scenario, outcome, options.judge);
    const reasons = [
      ...judge(scenario.expect, outcome),
      ...rubricProblems(scenario.expect, rubric),
      ...lockCheck(mode, lockKey, sent),
    ];
    if (mode.kind === 'live' && mode.onRecording && 'recording' in model) {
      mode.onRecording((model as LiveModelSource).recording(), reasons.length === 0);
    }
    return { ...resultOf(scenario, mode, reasons, { run, wallMs, sent, rubric }), lockKey };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const wallMs = Math.round(performance.now() - started);
    return {
      ...resultOf(scenario, mode, [`could not run: ${message}`], { run, wallMs, sent: sentSoFar() }),
      lockKey,
    };
  } finally {
    await opsbot?.close();
    await model?.close();
    await world?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
