// The metrics /metrics shows, in a prom-client registry of opsbot's own. Labels are few-valued on purpose:
// platforms, run states, configured tool and patrol names; never run ids, user ids, channels or URLs.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Platform } from '../../agent/principal.js';

export const METRICS_PREFIX = 'opsbot_';

/** How a run ended; each has its own counter, so a dashboard can graph `finished` without a label filter. */
export type RunEnding = 'finished' | 'failed' | 'cancelled' | 'expired' | 'outcome_unknown';
export type ToolCallOutcome = 'ok' | 'failed' | 'refused';

/** Seconds: a run spans a model turn (seconds) to a wait for an approver (minutes to hours). */
const RUN_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14_400];
/** Seconds: a tool call is a lookup (milliseconds) up to a command at its timeout. */
const TOOL_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds: one chat completion, retries included. */
const MODEL_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120];

export class OpsbotMetrics {
  readonly registry = new Registry();
  readonly runsStarted = this.counter('runs_started_total', 'Runs started in this process.', ['platform']);
  private readonly runEndings: Record<RunEnding, Counter<'platform'>> = {
    finished: this.counter('runs_finished_total', 'Runs that finished with an answer.', ['platform']),
    failed: this.counter('runs_failed_total', 'Runs that failed.', ['platform']),
    cancelled: this.counter('runs_cancelled_total', 'Runs cancelled by a person.', ['platform']),
    expired: this.counter('runs_expired_total', 'Runs whose question or approval expired unanswered.', [
      'platform',
    ]),
    outcome_unknown: this.counter(
      'runs_outcome_unknown_total',
      'Runs stopped mid-action by a crash: the action may or may not have happened.',
      ['platform'],
    ),
  };
  readonly runDuration = new Histogram({
    name: `${METRICS_PREFIX}run_duration_seconds`,
    help: 'From a run being created to its end, waits for people included.',
    labelNames: ['platform', 'status'] as const,
    buckets: RUN_BUCKETS,
    registers: [this.registry],
  });
  readonly toolCallDuration = new Histogram({
    name: `${METRICS_PREFIX}tool_call_duration_seconds`,
    help: 'Tool calls by tool and outcome (ok, failed, or refused before running).',
    labelNames: ['tool', 'outcome'] as const,
    buckets: TOOL_BUCKETS,
    registers: [this.registry],
  });
  readonly modelDuration = new Histogram({
    name: `${METRICS_PREFIX}model_request_duration_seconds`,
    help: 'Chat completions by outcome (ok or error), the SDK retries included.',
    labelNames: ['outcome'] as const,
    buckets: MODEL_BUCKETS,
    registers: [this.registry],
  });
  readonly modelTokens = this.counter('model_tokens_total', 'Tokens the model reported, by kind.', ['kind']);
  readonly storeErrors = this.counter(
    'store_errors_total',
    'Store operations that failed (Redis or SQLite unreachable, locked or refusing), by operation.',
    ['operation'],
  );
  readonly approvalsWaiting = this.gauge('approvals_waiting', 'Runs waiting for an approver, in the Store.');
  readonly questionsWaiting = this.gauge(
    'questions_waiting',
    "Runs waiting for a person's answer, in the Store.",
  );
  readonly queueWaiting = this.gauge('queue_waiting', 'Runs waiting in the RunQueue for a worker.');
  readonly queueActive = this.gauge('queue_active', 'Runs a worker is advancing now.');
  readonly queueStalled = this.gauge(
    'queue_stalled',
    'Jobs of dead workers handed back by the queue (BullMQ only; 0 in-process).',
  );
  readonly modelRate = this.gauge(
    'model_rate_limit_requests_per_second',
    "Model requests per second this process allows now: model.rate_limit's rate, or less after the server's 429s.",
  );
  readonly modelInFlight = this.gauge(
    'model_requests_in_flight',
    'Model requests this process has open now.',
  );
  readonly modelWaiting = this.gauge(
    'model_requests_waiting',
    "Model requests waiting for this process's rate limit or its cap on requests in flight.",
  );
  readonly patrolChecks = this.gauge(
    'patrol_checks',
    'Patrol checks by patrol and state (ok, pending, warn, critical, error, resolving).',
    ['patrol', 'state'],
  );
  readonly alertNotifications = this.counter(
    'alert_notifications_total',
    'Alertmanager notifications handled, by outcome (opened, changed, resolved, duplicate, dropped, …).',
    ['outcome'],
  );
  readonly alertDuplicates = this.counter(
    'alert_notifications_duplicate_total',
    'Alertmanager notifications whose firing set was the one already shown (repeat_interval resends, HA twins): nothing posted.',
  );
  readonly alertPostsFailed = this.counter(
    'alert_posts_failed_total',
    'Posts of alert threads (a root, its edit, a reply) that the chat platform refused or did not answer: each is saved and tried again.',
  );
  readonly alertGroupsOpen = this.gauge('alert_groups_open', 'Alert groups firing now, in the Store.');
  readonly alertGroupsPending = this.gauge(
    'alert_groups_pending_posts',
    'Alert groups whose thread does not show their state yet: posts due, or waiting for a retry after a failure.',
  );
  readonly alertInvestigations = this.counter(
    'alert_investigations_started_total',
    'Investigations started for alert groups, by how (automatic, button, checks).',
    ['how'],
  );
  readonly scrapeErrors = this.counter(
    'metrics_collect_errors_total',
    'Parts of /metrics that could not be read at a scrape (the values shown are the last ones read).',
    ['part'],
  );

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false)
      collectDefaultMetrics({ register: this.registry, prefix: METRICS_PREFIX });
  }

  runStarted(platform: Platform): void {
    this.runsStarted.inc({ platform });
  }

  runEnded(platform: Platform, status: RunEnding, durationMs: number): void {
    this.runEndings[status].inc({ platform });
    this.runDuration.observe({ platform, status }, seconds(durationMs));
  }

  toolCalled(tool: string, outcome: ToolCallOutcome, durationMs: number): void {
    this.toolCallDuration.observe({ tool, outcome }, seconds(durationMs));
  }

  modelAnswered(
    outcome: 'ok' | 'error',
    durationMs: number,
    tokens?: { prompt: number; completion: number },
  ) {
    this.modelDuration.observe({ outcome }, seconds(durationMs));
    if (tokens) {
      this.modelTokens.inc({ kind: 'prompt' }, tokens.prompt);
      this.modelTokens.inc({ kind: 'completion' }, tokens.completion);
    }
  }

  notificationHandled(outcome: string): void {
    this.alertNotifications.inc({ outcome });
    if (outcome === 'duplicate') this.alertDuplicates.inc();
  }

  alertPostFailed(): void {
    this.alertPostsFailed.inc();
  }

  investigationStarted(how: 'automatic' | 'button' | 'checks'): void {
    this.alertInvestigations.inc({ how });
  }

  storeFailed(operation: string): void {
    this.storeErrors.inc({ operation });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name: `${METRICS_PREFIX}${name}`, help, labelNames, registers: [this.registry] });
  }

  private gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    return new Gauge({ name: `${METRICS_PREFIX}${name}`, help, labelNames, registers: [this.registry] });
  }
}

function seconds(ms: number): number {
  return Math.max(0, ms) / 1000;
}
