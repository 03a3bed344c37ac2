// What people do to patrols, from buttons and commands alike: run now, ack, snooze, pause and resume. Each is
// checked against the person's role, audited, and reflected on the report it concerns.
import type { ChatPort } from '../agent/chat-port.js';
import type { Clock } from '../agent/clock.js';
import { errorMessage } from '../agent/errors.js';
import type { Logger } from '../agent/logger.js';
import { type AuditLog, auditActor } from '../agent/policy/audit-log.js';
import type { PermissionSettings } from '../agent/policy/permission-settings.js';
import type { Principal } from '../agent/principal.js';
import { readableUtc } from '../agent/utc-time.js';
import { type PatrolAction, patrolRefusal } from './patrol-permissions.js';
import { reportMessage } from './patrol-poster.js';
import { PATROL_WIDE, type PatrolReportRecord } from './patrol-records.js';
import type { PatrolRepository } from './patrol-repository.js';
import type { RunNowOutcome } from './patrol-scheduler.js';
import type { Patrol } from './patrol-settings.js';

export interface PatrolSteeringDeps {
  /** The patrols running in this process (known once patrols started). */
  active(): Readonly<Record<string, Patrol>>;
  /** Every configured patrol, including those skipped here. */
  all: Readonly<Record<string, Patrol>>;
  repository: PatrolRepository;
  permissions: PermissionSettings;
  audit: AuditLog;
  clock: Clock;
  chat: ChatPort;
  logger: Logger;
  runNow(name: string): Promise<RunNowOutcome>;
  nextRunAt(name: string): number | undefined;
}

export type Steered = { ok: true; message: string } | { ok: false; message: string };

export class PatrolSteering {
  constructor(private readonly deps: PatrolSteeringDeps) {}

  /** Undefined when the person may; otherwise the refusal, audited. */
  async refused(principal: Principal, action: PatrolAction, patrol: string): Promise<string | undefined> {
    const refusal = patrolRefusal(this.deps.permissions, principal, action);
    if (refusal) await this.audit(principal, action, patrol, 'refused', refusal);
    return refusal;
  }

  async run(principal: Principal, name: string): Promise<Steered> {
    if (!this.deps.active()[name]) return { ok: false, message: this.notRunning(name) };
    const refusal = await this.refused(principal, 'run', name);
    if (refusal) return { ok: false, message: refusal };
    const outcome = await this.deps.runNow(name);
    if (!outcome.started) return { ok: false, message: `Patrol ${name} did not start: ${outcome.reason}` };
    await this.audit(principal, 'run', name, 'done');
    const channel = this.deps.active()[name]!.channel;
    return {
      ok: true,
      message: `Running patrol ${name} now. It posts to ${channel.platform}:${channel.channelId} only if something changed.`,
    };
  }

  async ack(principal: Principal, report: PatrolReportRecord): Promise<Steered> {
    const refusal = await this.refused(principal, 'ack', report.patrol);
    if (refusal) return { ok: false, message: refusal };
    if (report.resolvedAt !== undefined)
      return { ok: false, message: `This report is already resolved; there is nothing to ack.` };
    if (report.acked)
      return {
        ok: false,
        message: `Already acked by ${report.acked.by}; reminders for this report are off.`,
      };
    const next = { ...report, acked: { by: principal.displayName, at: this.deps.clock.now() } };
    await this.deps.repository.saveReport(next);
    await this.refresh(next);
    await this.audit(principal, 'ack', report.patrol, 'done', `report ${report.reportId}`);
    return { ok: true, message: `Acked: no more reminders for this ${report.patrol} report.` };
  }

  /** Snoozes the whole patrol, or some of its checks, for `ms`. */
  async snooze(
    principal: Principal,
    name: string,
    checkIds: string[] | 'patrol',
    ms: number,
    report?: PatrolReportRecord,
  ): Promise<Steered> {
    const patrol = this.deps.all[name];
    if (!patrol) return { ok: false, message: this.unknown(name) };
    const refusal = await this.refused(principal, 'snooze', name);
    if (refusal) return { ok: false, message: refusal };
    const unknown =
      checkIds === 'patrol' ? [] : checkIds.filter((id) => !patrol.checks.some((c) => c.id === id));
    if (unknown.length > 0)
      return {
        ok: false,
        message: `Patrol ${name} has no check ${unknown.join(', ')} (checks: ${patrol.checks.map((c) => c.id).join(', ')}).`,
      };
    const now = this.deps.clock.now();
    const until = now + ms;
    const control = await this.deps.repository.control(name);
    const keys = checkIds === 'patrol' ? [PATROL_WIDE] : checkIds;
    for (const key of keys) control.snoozes[key] = { by: principal.displayName, at: now, until };
    await this.deps.repository.saveControl(name, control);
    if (report) {
      const next = { ...report, snoozedUntil: until };
      await this.deps.repository.saveReport(next);
      await this.refresh(next);
    }
    const what = checkIds === 'patrol' ? `patrol ${name}` : `${name}/${checkIds.join(', ')}`;
    await this.audit(principal, 'snooze', name, 'done', `${what} until ${new Date(until).toISOString()}`);
    return {
      ok: true,
      message: `Snoozed ${what} until ${readableUtc(until)}: nothing is posted for it until then.`,
    };
  }

  async pause(principal: Principal, name: string, ms: number | undefined): Promise<Steered> {
    if (!this.deps.all[name]) return { ok: false, message: this.unknown(name) };
    const refusal = await this.refused(principal, 'pause', name);
    if (refusal) return { ok: false, message: refusal };
    const now = this.deps.clock.now();
    const control = await this.deps.repository.control(name);
    control.paused = { by: principal.displayName, at: now, ...(ms ? { until: now + ms } : {}) };
    await this.deps.repository.saveControl(name, control);
    await this.audit(
      principal,
      'pause',
      name,
      'done',
      ms ? `until ${new Date(now + ms).toISOString()}` : 'until resumed',
    );
    return {
      ok: true,
      message: ms
        ? `Paused patrol ${name} until ${readableUtc(now + ms)}.`
        : `Paused patrol ${name} until someone resumes it (\`patrol resume ${name}\`).`,
    };
  }

  async resume(principal: Principal, name: string): Promise<Steered> {
    if (!this.deps.all[name]) return { ok: false, message: this.unknown(name) };
    const refusal = await this.refused(principal, 'pause', name);
    if (refusal) return { ok: false, message: refusal };
    const control = await this.deps.repository.control(name);
    if (!control.paused) return { ok: false, message: `Patrol ${name} is not paused.` };
    delete control.paused;
    await this.deps.repository.saveControl(name, control);
    await this.audit(principal, 'resume', name, 'done');
    return {
      ok: true,
      message: `Resumed patrol ${name}; its next run is ${nextWords(this.deps.nextRunAt(name))}.`,
    };
  }

  unknown(name: string): string {
    const names = Object.keys(this.deps.all);
    return `There is no patrol ${name}. ${names.length > 0 ? `Patrols: ${names.join(', ')}.` : 'No patrols are configured.'}`;
  }

  private notRunning(name: string): string {
    if (!this.deps.all[name]) return this.unknown(name);
    const channel = this.deps.all[name]!.channel;
    return `Patrol ${name} is not running here: it posts to ${channel.platform}, which is not running in this opsbot.`;
  }

  /** Shows the report's new state (acked, snoozed) in place; a failed update is not the person's problem. */
  private async refresh(report: PatrolReportRecord): Promise<void> {
    const patrol = this.deps.all[report.patrol];
    const nextRunAt = this.deps.nextRunAt(report.patrol);
    await this.deps.chat
      .update(
        report.ref,
        reportMessage(report, { timezone: patrol?.timezone ?? 'UTC', ...(nextRunAt ? { nextRunAt } : {}) }),
      )
      .catch((error) =>
        this.deps.logger.warn(
          { report: report.reportId, err: errorMessage(error) },
          'could not update a patrol report in place',
        ),
      );
  }

  private async audit(
    principal: Principal,
    action: string,
    patrol: string,
    outcome: 'done' | 'refused',
    reason?: string,
  ): Promise<void> {
    await this.deps.audit.record({
      kind: 'patrol_action',
      actor: auditActor(principal),
      tool: `patrol:${patrol}`,
      outcome: `${action} ${outcome}`,
      ...(reason ? { reason } : {}),
    });
  }
}

export function nextWords(at: number | undefined): string {
  return at === undefined ? 'not scheduled' : readableUtc(at);
}
