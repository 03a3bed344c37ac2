// Carries out a patrol run's posts: a new report in the patrol's channel, replies in a report's thread, and the
// report updated in place. Each post is made once per patrol, slot and kind, across replicas and retries.
import type { ChatPort, PatrolReportMessage } from '../agent/chat-port.js';
import type { Conversation } from '../agent/conversation.js';
import type { PatrolPost } from './patrol-posts.js';
import type { PatrolReportRecord } from './patrol-records.js';
import type { PatrolRepository } from './patrol-repository.js';
import type { PatrolChannel } from './patrol-settings.js';

export interface PatrolRunContext {
  name: string;
  channel: PatrolChannel;
  timezone: string;
  slotMs: number;
  /** Asked for by a person: its time is no slot of the schedule, so its posts are its own, by run id. */
  manual: boolean;
  late: boolean;
  runId: string;
  now: number;
  nextRunAt?: number;
  summary?: string;
}

/** The report as a chat message, from its stored record. */
export function reportMessage(
  record: PatrolReportRecord,
  extra: { nextRunAt?: number; timezone: string },
): PatrolReportMessage {
  return {
    kind: 'patrol_report',
    reportId: record.reportId,
    patrol: record.patrol,
    runId: record.runId,
    level: record.level,
    lines: record.lines,
    ...(record.summary ? { summary: record.summary } : {}),
    ...(record.late ? { late: true } : {}),
    ...(extra.nextRunAt && record.resolvedAt === undefined ? { nextRunAt: extra.nextRunAt } : {}),
    timezone: extra.timezone,
    openedAt: record.openedAt,
    ...(record.resolvedAt ? { resolvedAt: record.resolvedAt } : {}),
    ...(record.acked ? { acked: record.acked } : {}),
    ...(record.snoozedUntil ? { snoozedUntil: record.snoozedUntil } : {}),
    buttons: record.resolvedAt === undefined,
  };
}

export interface PostOutcome {
  /** The posts this run made; one another run made for the slot is neither done nor failed here. */
  done: PatrolPost[];
  failed?: { post: PatrolPost; error: unknown };
}

/** A post's kind in the history and in its dedupe key. */
export function postWord(post: PatrolPost): 'report' | 'reply' | 'update' {
  return post.kind === 'new_report' ? 'report' : post.kind === 'thread_reply' ? 'reply' : 'update';
}

export class PatrolPoster {
  constructor(
    private readonly chat: ChatPort,
    private readonly repository: PatrolRepository,
  ) {}

  /**
   * Makes the posts in order and stops at the first that fails: the posts this run made, and the one that failed
   * with its error. The caller saves new states only for the checks of the posts made.
   */
  async post(posts: PatrolPost[], context: PatrolRunContext): Promise<PostOutcome> {
    const done: PatrolPost[] = [];
    for (const post of posts) {
      // A new report is one per slot whatever its id; replies and updates are one per report and slot. A manual
      // run's time is only its second, which a slot or another manual run can share, and its run lease already
      // makes it the only run of the patrol: its posts are keyed by the run too, so none is taken for another's.
      const kind = post.kind === 'new_report' ? postWord(post) : `${postWord(post)}:${post.reportId}`;
      const key = context.manual ? `${kind}:${context.runId}` : kind;
      try {
        // Another run made this post for the slot: its checks are that run's to save, not this one's.
        if (!(await this.repository.firstPost(context.name, context.slotMs, key, context.runId))) continue;
        if (post.kind === 'new_report') await this.newReport(post, context);
        else if (post.kind === 'thread_reply') await this.reply(post, context);
        else await this.update(post, context);
      } catch (error) {
        return { done, failed: { post, error } };
      }
      done.push(post);
    }
    return { done };
  }

  private async newReport(post: Extract<PatrolPost, { kind: 'new_report' }>, context: PatrolRunContext) {
    const conversation: Conversation = {
      platform: context.channel.platform,
      channelId: context.channel.channelId,
    };
    const record: PatrolReportRecord = {
      reportId: post.reportId,
      patrol: context.name,
      ref: { conversation, messageId: '' },
      level: post.level,
      lines: post.lines,
      checkIds: post.lines.map((line) => line.checkId),
      runId: context.runId,
      ...(context.summary ? { summary: context.summary } : {}),
      ...(context.late ? { late: true } : {}),
      openedAt: context.now,
    };
    const ref = await this.chat.post(conversation, reportMessage(record, context));
    await this.repository.saveReport({
      ...record,
      ref: { conversation: ref.conversation, messageId: ref.messageId },
    });
  }

  /** Resolves, severity changes and reminders go in the report's thread, as a small report without buttons. */
  private async reply(post: Extract<PatrolPost, { kind: 'thread_reply' }>, context: PatrolRunContext) {
    const record = await this.repository.report(post.reportId);
    if (!record) return;
    const level = post.lines.every((line) => line.change === 'resolved') ? 'resolved' : record.level;
    const thread: Conversation = { ...record.ref.conversation, threadId: record.ref.messageId };
    await this.chat.post(thread, {
      ...reportMessage(
        { ...record, level, lines: post.lines, runId: context.runId },
        { timezone: context.timezone },
      ),
      ...(context.summary ? { summary: context.summary } : {}),
      buttons: false,
    });
  }

  private async update(post: Extract<PatrolPost, { kind: 'update_report' }>, context: PatrolRunContext) {
    const record = await this.repository.report(post.reportId);
    if (!record) return;
    const changed = new Map(post.lines.map((line) => [line.checkId, line]));
    const next: PatrolReportRecord = {
      ...record,
      level: post.level,
      lines: record.lines.map((line) => changed.get(line.checkId) ?? line),
      ...(post.allResolved ? { resolvedAt: context.now } : {}),
    };
    await this.chat.update(record.ref, reportMessage(next, context));
    await this.repository.saveReport(next);
  }
}
