// What running one scenario gives: pass or fail with the reasons, the run's figures, and what the model was sent.
import type { Run } from '../agent/run.js';
import type { FakeRequestBody } from '../tests/fakes/openai-answers.js';
import type { Cassette, CassetteTurn } from './cassette.js';
import type { ModelEndpoint } from './model-source.js';
import type { RubricResult } from './rubric-judge.js';
import type { Scenario } from './schema.js';
import type { SentFingerprint } from './sent-fingerprint.js';
import type { SentLock } from './sent-lock.js';

export interface ScenarioResult {
  name: string;
  group: string;
  /** Where the model's replies came from. */
  mode: ModelMode['kind'];
  passed: boolean;
  /** Why the scenario was not run in this mode (then `passed` is false and it counts in no total). */
  skipped?: string;
  reasons: string[];
  status: string;
  steps: number;
  /** Model requests the run made (its reviewer's and its plan's included). */
  modelCalls: number;
  toolCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** From the task's start until the run settled for the last time (world and start-up not counted). */
  wallMs: number;
  /** What the model was sent: tools offered and prompt hashes (see sent-fingerprint.ts). */
  sent: SentFingerprint[];
  /** The engine the run started with, as its first event records it; absent when no run started. */
  engine?: string;
  /** Its entry in evals/sent.lock.json: `group/name`, with `@<engine>` on an engine not its own. */
  lockKey?: string;
  /** The LLM judge's verdict on the scenario's rubric, with --judge-model. */
  rubric?: RubricResult;
}

export type ModelMode =
  | {
      kind: 'scripted';
      lock?: SentLock | 'skip';
      /** Each scripted answer this late (`--model-delay`), to measure engines as a slow model would make them. */
      delayMs?: number;
      /** Tests only: what opsbot sends, changed on its way to the fake model (a kernel that breaks the conversation). */
      rewriteRequest?: (body: FakeRequestBody) => FakeRequestBody;
    }
  | { kind: 'cassette'; cassette: Cassette; where: string }
  | {
      kind: 'live';
      target: ModelEndpoint;
      /** The model that plays the person (who.knows, who.persona); the target when absent. */
      user?: ModelEndpoint;
      onRecording?: (turns: CassetteTurn[], passed: boolean) => void;
    };

export interface Measured {
  run: Run | undefined;
  wallMs: number;
  sent: SentFingerprint[];
  rubric?: RubricResult | undefined;
}

export function resultOf(
  scenario: Scenario,
  mode: ModelMode,
  reasons: string[],
  measured: Measured,
): ScenarioResult {
  const { run } = measured;
  return {
    name: scenario.name,
    group: scenario.group,
    mode: mode.kind,
    passed: reasons.length === 0,
    reasons,
    status: run?.status ?? 'not started',
    steps: run?.step ?? 0,
    modelCalls: run?.usage.modelCalls ?? 0,
    toolCalls: run?.usage.toolCalls ?? 0,
    promptTokens: run?.usage.promptTokens ?? 0,
    completionTokens: run?.usage.completionTokens ?? 0,
    wallMs: measured.wallMs,
    sent: measured.sent,
    ...(engineOf(run) ? { engine: engineOf(run) } : {}),
    ...(measured.rubric ? { rubric: measured.rubric } : {}),
  };
}

function engineOf(run: Run | undefined): string | undefined {
  const received = run?.events.find((event) => event.type === 'task_received');
  return received?.type === 'task_received' ? received.engine : undefined;
}

export function skippedResult(scenario: Scenario, mode: ModelMode, why: string): ScenarioResult {
  const result = resultOf(scenario, mode, [], { run: undefined, wallMs: 0, sent: [] });
  return { ...result, passed: false, skipped: why };
}
