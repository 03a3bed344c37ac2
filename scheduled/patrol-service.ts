// Patrols at run time: the clock fires a patrol, its checks run as one kernel run, the evaluation decides what
// changed, and only that is posted. Also the report buttons and the `patrol …` commands (PatrolControl).
import type { ChatPort } from '../agent/chat-port.js';
import type { Clock } from '../agent/clock.js';
import { errorMessage } from '../agent/errors.js';
import type { Kernel } from '../agent/kernel.js';
import type { Logger } from '../agent/logger.js';
import type { AuditLog } from '../agent/policy/audit-log.js';
import type { PermissionSettings } from '../agent/policy/permission-settings.js';
import type { Platform, Principal } from '../agent/principal.js';
import { randomHex } from '../agent/random-id.js';
import type { Store } from '../agent/store/store.js';
import { PatrolButtons } from './patrol-buttons.js';
import { PatrolCommands } from './patrol-commands.js';
import type { PatrolButton, PatrolControl } from './patrol-control.js';
import type { ReportFacts } from './patrol-evaluation.js';
import { evaluatePatrol } from './patrol-evaluation.js';
import { PatrolPoster, postWord } from './patrol-poster.js';
import { statesAfterPosts } from './patrol-posts.js';
import { PATROL_WIDE } from './patrol-records.js';
import { PatrolRepository } from './patrol-repository.js';
import { type PatrolRunResult, runPatrolChecks } from './patrol-runner.js';
import {
  PatrolScheduler,
  type PatrolSlot,
  type RunNowOutcome,
  type TickOutcome,
} from './patrol-scheduler.js';
import type { Patrol, Patrols } from './patrol-settings.js';
import { PatrolSteering, type PatrolSteeringDeps, type Steered } from './patrol-steering.js';

export interface PatrolServiceOptions {
  patrols: Patrols;
  kernel: Pick<Kernel, 'start' | 'settled'>;
  store: Store;
  chat: ChatPort;
  /** Whether a chat platform is running in this process: a patrol posting elsewhere is skipped. */
  platformRunning(platform: Platform): boolean;
  permissions: PermissionSettings;
  audit: AuditLog;
  clock: Clock;
  logger: Logger;
  /** limits.patrol_history: how long patrol runs, history and resolved reports are kept. */
  keepHistoryMs: number;
  /** Unique per process, for the slot claims. */
  owner: string;
  /**
   * Whether this process runs the patrols' clocks (true by default). A gateway (OPSBOT_ROLE=gateway) does not:
   * it answers report buttons and `patrol …` commands, and a manual run's checks go to the workers like any run.
   */
  schedule?: boolean;
  /** This bot's own address, for checks that name it as `{{opsbot.url}}`: the server's once it listens. */
  selfUrl(): string;
}

export class PatrolService implements PatrolControl {
  readonly repository: PatrolRepository;
  private readonly poster: PatrolPoster;
  private readonly logger: Logger;
  /** The patrols that run here (their platform is running), known once started. */
  private active: Record<string, Patrol> = {};
  private scheduler: PatrolScheduler | undefined;
  private readonly buttons: PatrolButtons;
  private readonly commands: PatrolCommands;

  constructor(private readonly options: PatrolServiceOptions) {
    this.logger = options.logger.child({ component: 'patrols' });
    this.repository = new PatrolRepository(options.store, options.clock, options.keepHistoryMs, this.logger);
    this.poster = new PatrolPoster(options.chat, this.repository);
    const deps: PatrolSteeringDeps = {
      active: () => this.active,
      all: options.patrols,
      repository: this.repository,
      permissions: options.permissions,
      audit: options.audit,
      clock: options.clock,
      chat: options.chat,
      logger: this.logger,
      runNow: (name) => this.runNow(name),
      nextRunAt: (name) => this.nextRunAt(name),
    };
    // One steering for buttons and commands alike: the same checks, audit and replies.
    const steering = new PatrolSteering(deps);
    this.buttons = new PatrolButtons(deps, steering);
    this.commands = new PatrolCommands(deps, steering);
  }

  /**
   * Starts the clocks of the patrols whose platform is running; the others are skipped with a warning. Without
   * `schedule`, the patrols are only made ready to be steered and run by hand.
   */
  async start(): Promise<void> {
    const scheduler = this.prepare();
    if (this.options.schedule !== false) await scheduler.start();
  }

  /** Whether this process runs the patrols on their schedule (a gateway only steers them). */
  get scheduling(): boolean {
    return this.options.schedule !== false;
  }

  /**
   * Works out which patrols run here and builds their clocks without starting them: enough for the CLI's
   * `patrol list|show|…`, which read and steer patrols but run none on a schedule.
   */
  prepare(): PatrolScheduler {
    if (this.scheduler) return this.scheduler;
    const { options } = this;
    for (const [name, patrol] of Object.entries(options.patrols)) {
      if (options.platformRunning(patrol.channel.platform)) this.active[name] = patrol;
      else
        this.logger.warn(
          { patrol: name, platform: patrol.channel.platform },
          `patrol ${name} is skipped: it posts to ${patrol.channel.platform}, which is not running in this opsbot`,
        );
    }
    this.scheduler = new PatrolScheduler({
      patrols: this.active,
      store: options.store,
      owner: options.owner,
      clock: options.clock,
      logger: this.logger,
      run: (name, slot) => this.runPatrol(name, slot),
      // `enabled: false` in the settings pauses a patrol as `patrol pause` does, without an end.
      isPaused: async (name) =>
        this.active[name]?.enabled === false || (await this.repository.control(name)).paused !== undefined,
    });
    return this.scheduler;
  }

  async stop(): Promise<void> {
    await this.scheduler?.stop();
  }

  /** The patrols running here, by name. */
  running(): string[] {
    return Object.keys(this.active);
  }

  act(button: PatrolButton): Promise<string> {
    return this.buttons.act(button);
  }

  command(args: string, principal: Principal): Promise<string> {
    return this.commands.run(args, principal);
  }

  /** A `patrol …` command's reply and whether it did what it asked (the CLI's exit code). */
  answer(args: string, principal: Principal): Promise<Steered> {
    return this.commands.answer(args, principal);
  }

  nextRunAt(name: string): number | undefined {
    return this.scheduler?.nextRunAt(name);
  }

  /** One scheduled tick for the slot `slotMs`, elected and admitted as node-cron's would be (tests, tools). */
  tick(name: string, slotMs: number): Promise<TickOutcome> {
    return this.prepare().tick(name, slotMs);
  }

  async runNow(name: string): Promise<RunNowOutcome> {
    if (!this.scheduler) return { started: false, reason: 'patrols have not started yet' };
    return this.scheduler.runNow(name);
  }

  configured(name: string): Patrol {
    const patrol = this.options.patrols[name];
    if (!patrol) throw new Error(`There is no patrol ${name}`);
    return patrol;
  }

  /** Runs a patrol's checks only: no state changes and no posts (`opsbot patrol run`). */
  check(name: string): Promise<PatrolRunResult> {
    const patrol = this.options.patrols[name];
    if (!patrol) throw new Error(`There is no patrol ${name}`);
    return runPatrolChecks(this.runner(), name, patrol);
  }

  /** One run of a patrol, from the clock or a person: checks, evaluation, posts, then the new states. */
  async runPatrol(name: string, slot: PatrolSlot): Promise<void> {
    const patrol = this.active[name];
    if (!patrol) return;
    const result = await runPatrolChecks(this.runner(), name, patrol);
    const now = this.options.clock.now();
    const entry = { at: now, runId: result.run.id, late: slot.late, manual: slot.manual };
    if (result.problem) {
      this.logger.warn({ patrol: name, runId: result.run.id }, `patrol ${name}: ${result.problem}`);
      await this.repository.appendHistory(name, {
        ...entry,
        failing: [],
        passed: 0,
        posted: [],
        problem: result.problem,
      });
      return;
    }
    const [states, control] = await Promise.all([
      this.repository.states(name),
      this.repository.control(name),
    ]);
    const reports: Record<string, ReportFacts> = {};
    for (const state of Object.values(states)) {
      const reportId = state.reported?.reportId;
      if (!reportId || Object.hasOwn(reports, reportId)) continue;
      const record = await this.repository.report(reportId);
      reports[reportId] = record?.acked ? { acked: record.acked } : {};
    }
    const { [PATROL_WIDE]: wide, ...checkSnoozes } = control.snoozes;
    const evaluation = evaluatePatrol({
      patrol,
      states,
      outcomes: result.outcomes,
      now,
      newReportId: `rpt_${randomHex(8)}`,
      reports,
      ...(wide ? { patrolSnoozedUntil: wide.until } : {}),
      checkSnoozedUntil: Object.fromEntries(Object.entries(checkSnoozes).map(([id, s]) => [id, s.until])),
    });
    const nextRunAt = this.nextRunAt(name);
    const outcome = await this.poster.post(evaluation.posts, {
      name,
      channel: patrol.channel,
      timezone: patrol.timezone,
      slotMs: slot.at,
      manual: slot.manual,
      late: slot.late,
      runId: result.run.id,
      now,
      ...(nextRunAt ? { nextRunAt } : {}),
      ...(result.summary ? { summary: result.summary } : {}),
    });
    let problem: string | undefined;
    if (outcome.failed) {
      // The checks that post concerned keep their states, so the next run finds the same changes and posts them.
      problem = `could not post to ${patrol.channel.platform}:${patrol.channel.channelId}: ${errorMessage(outcome.failed.error)}`;
      this.logger.warn(
        { patrol: name, err: errorMessage(outcome.failed.error) },
        `patrol ${name} ${problem}`,
      );
    }
    await this.repository.saveStates(
      name,
      statesAfterPosts(states, evaluation.states, evaluation.posts, outcome.done),
    );
    const failing = Object.entries(result.outcomes).flatMap(([checkId, outcome]) =>
      outcome.kind === 'pass'
        ? []
        : [{ checkId, level: outcome.kind === 'error' ? ('error' as const) : outcome.severity }],
    );
    await this.repository.appendHistory(name, {
      ...entry,
      failing,
      passed: Object.values(result.outcomes).filter((o) => o.kind === 'pass').length,
      posted: outcome.done.map(postWord),
      ...(problem ? { problem } : {}),
    });
  }

  private runner() {
    return {
      kernel: this.options.kernel,
      permissions: this.options.permissions,
      keepForMs: this.options.keepHistoryMs,
      selfUrl: this.options.selfUrl,
    };
  }
}
