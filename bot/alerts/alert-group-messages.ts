// The messages of an alert group's thread, from its stored record: the root as it stands, and the reply that says
// what changed. Pure.
import type { AlertGroupMessage, AlertLine } from '../../agent/chat-port.js';
import type { AlertGroupRecord, PendingReply, ShownAlert } from './alert-group-state.js';

/** What a firing root may offer besides Ack: Investigate with a model, Silence with an Alertmanager (and group labels to match). */
export interface RootButtonOffers {
  investigateButton: boolean;
  silenceButtons: boolean;
  /** The time now: a silence shows on the root, and takes the place of its Silence buttons, until it ends. */
  now: number;
}

export function rootMessage(record: AlertGroupRecord, options: RootButtonOffers): AlertGroupMessage {
  const firing = record.status === 'firing';
  const silenced = record.silenced && record.silenced.until > options.now ? record.silenced : undefined;
  return {
    kind: 'alert_group',
    groupId: record.groupId,
    part: 'root',
    status: record.status,
    groupLabels: record.groupLabels,
    alerts: alertLines(record.alerts, record),
    firingCount: firing ? record.alerts.length : 0,
    openedAt: record.openedAt,
    ...(record.resolvedAt !== undefined ? { resolvedAt: record.resolvedAt } : {}),
    ...linkOf(record),
    ...(record.investigation.note ? { note: record.investigation.note } : {}),
    ...(record.acked ? { acked: record.acked } : {}),
    ...(silenced ? { silenced } : {}),
    buttons: firing
      ? {
          investigate: options.investigateButton,
          investigated: record.investigation.runId !== undefined,
          silence: options.silenceButtons && silenceable(record) && !silenced,
        }
      : false,
  };
}

/** Whether the group has a label to match exactly: alertmanager_silence refuses a silence with no exact matcher. */
export function silenceable(record: Pick<AlertGroupRecord, 'groupLabels'>): boolean {
  return Object.values(record.groupLabels).some((value) => value !== '');
}

/** The reply for a change of a group already posted: which alerts joined and which resolved. */
export function changeMessage(record: AlertGroupRecord, reply: PendingReply): AlertGroupMessage {
  return {
    kind: 'alert_group',
    groupId: record.groupId,
    part: 'change',
    status: reply.kind === 'resolved' ? 'resolved' : 'firing',
    groupLabels: record.groupLabels,
    alerts: alertLines(reply.added, record),
    resolved: alertLines(reply.resolved, record),
    firingCount: reply.firingCount,
    openedAt: record.openedAt,
    ...(reply.resolvedAt !== undefined ? { resolvedAt: reply.resolvedAt } : {}),
    ...(reply.note ? { note: reply.note } : {}),
    buttons: false,
  };
}

/**
 * Each alert with the labels that tell it apart: not the group's labels, and, when there are several alerts, none
 * that every alert of the group shares.
 */
export function alertLines(
  alerts: readonly ShownAlert[],
  record: Pick<AlertGroupRecord, 'groupLabels' | 'alerts'>,
): AlertLine[] {
  const everyone = record.alerts;
  const shared = (name: string, value: string) =>
    everyone.length > 1 && everyone.every((alert) => alert.labels[name] === value);
  return alerts.map((alert) => {
    const labels: Record<string, string> = {};
    for (const [name, value] of Object.entries(alert.labels)) {
      if (Object.hasOwn(record.groupLabels, name) || shared(name, value)) continue;
      labels[name] = value;
    }
    const summary = alert.annotations.summary ?? alert.annotations.description;
    return { labels, ...(summary ? { summary } : {}), since: alert.startsAt };
  });
}

function linkOf(record: AlertGroupRecord): { link?: string } {
  const link = record.alerts.find((alert) => isHttp(alert.generatorURL))?.generatorURL ?? record.externalURL;
  return isHttp(link) ? { link } : {};
}

function isHttp(url: string): boolean {
  return URL.canParse(url) && ['http:', 'https:'].includes(new URL(url).protocol);
}
