// An alert group's message as a neutral view: "🔴 FIRING · alertname=DiskFull · 3 alerts", one line per alert,
// the link, and opsbot's note. Labels and annotations come from outside: they are shown as plain text, never as
// markdown, and made inert.
import type { AlertGroupMessage, AlertLine } from '../../agent/chat-port.js';
import { encodeButton, SILENCE_CHOICES } from './button-codec.js';
import type { MessageView, ViewBlock, ViewButton } from './message-view-types.js';
import { inert } from './neutralize-pings.js';
import { clip, splitText } from './split-text.js';
import type { ViewLimits } from './view-limits.js';
import { readableUtc } from './view-time.js';

export function labelsText(labels: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}=${value}`);
  return pairs.length > 0 ? pairs.join(', ') : '(no group labels)';
}

export function alertGroupHeading(
  message: Pick<AlertGroupMessage, 'status' | 'groupLabels' | 'firingCount' | 'openedAt' | 'resolvedAt'>,
): string {
  const labels = labelsText(message.groupLabels);
  if (message.status === 'resolved') {
    const after =
      message.resolvedAt === undefined ? '' : ` · after ${minutes(message.resolvedAt - message.openedAt)}`;
    return `🟢 RESOLVED · ${labels}${after}`;
  }
  return `🔴 FIRING · ${labels} · ${message.firingCount} alert${message.firingCount === 1 ? '' : 's'}`;
}

/** `instance=db1, severity=critical: Disk is 95% full · since 12:05 UTC` */
export function alertLineText(line: AlertLine): string {
  const labels = Object.keys(line.labels).length > 0 ? labelsText(line.labels) : 'alert';
  return `${labels}${line.summary ? `: ${line.summary}` : ''} · since ${readableUtc(line.since)}`;
}

export function alertGroupView(message: AlertGroupMessage, limits: ViewLimits): MessageView {
  const heading = inert(clip(alertGroupHeading(message), limits.headingChars));
  const blocks: ViewBlock[] = [];
  if (message.part === 'root') {
    blocks.push(...plain(bullets(message.alerts), limits));
  } else if (message.status === 'resolved') {
    blocks.push(
      ...plain(
        `All alerts resolved after ${minutes((message.resolvedAt ?? message.openedAt) - message.openedAt)}:\n${bullets(message.resolved ?? [])}`,
        limits,
      ),
    );
  } else {
    if (message.alerts.length > 0)
      blocks.push(...plain(`Joined (${message.alerts.length}):\n${bullets(message.alerts)}`, limits));
    if ((message.resolved ?? []).length > 0) {
      blocks.push(...plain(`Resolved (${message.resolved!.length}):\n${bullets(message.resolved!)}`, limits));
    }
    blocks.push({ type: 'text', format: 'plain', text: `${message.firingCount} firing now.` });
  }
  if (message.note) blocks.push(...plain(message.note, limits));
  if (message.acked)
    blocks.push({
      type: 'text',
      format: 'plain',
      text: inert(`Acked by ${message.acked.by} at ${readableUtc(message.acked.at)}`),
    });
  if (message.silenced)
    blocks.push({ type: 'text', format: 'plain', text: inert(silencedText(message.silenced)) });
  return {
    kind: 'alert_group',
    tone: message.status === 'resolved' ? 'success' : 'error',
    summary: inert(clip(alertGroupHeading(message), 300)),
    heading,
    blocks,
    buttons: groupButtons(message),
    ...(message.link ? { footer: inert(clip(message.link, limits.fieldChars)) } : {}),
  };
}

/** `🔕 Silenced by Alice until 2026-01-01 15:04 UTC (1h) · silence 5c1d…`, written like the Acked line's time. */
export function silencedText(silenced: NonNullable<AlertGroupMessage['silenced']>): string {
  const id = silenced.silenceId ? ` · silence ${silenced.silenceId}` : '';
  return `🔕 Silenced by ${silenced.by} until ${readableUtc(silenced.until)} (${silenced.duration})${id}`;
}

function groupButtons(message: AlertGroupMessage): ViewButton[] {
  if (message.buttons === false) return [];
  const { groupId } = message;
  return [
    ...(message.acked
      ? []
      : [{ id: encodeButton({ action: 'alert_ack', groupId }), label: 'Ack', style: 'primary' as const }]),
    ...(message.buttons.investigate
      ? [
          {
            id: encodeButton({ action: 'alert_investigate', groupId }),
            label: message.buttons.investigated ? 'Run again' : 'Investigate',
            style: 'default' as const,
          },
        ]
      : []),
    ...(message.buttons.silence
      ? SILENCE_CHOICES.map((silence) => ({
          id: encodeButton({ action: 'alert_silence', groupId, silence }),
          label: `Silence ${silence}`,
          style: 'default' as const,
        }))
      : []),
  ];
}

function bullets(lines: readonly AlertLine[]): string {
  return lines.map((line) => `• ${alertLineText(line)}`).join('\n');
}

function plain(text: string, limits: ViewLimits): ViewBlock[] {
  if (text.trim() === '') return [];
  return splitText(inert(text), {
    max: limits.textChars,
    ...(limits.weight ? { weight: limits.weight } : {}),
  }).map((chunk) => ({ type: 'text', format: 'plain', text: chunk }));
}

function minutes(ms: number): string {
  return `${Math.max(1, Math.round(ms / 60_000))} min`;
}
