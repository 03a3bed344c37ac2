// An OutboundMessage as a neutral view: what a person should see, already trimmed and split to one platform's limits.
import type { OutboundMessage } from '../../agent/chat-port.js';
import { alertGroupView } from './alert-group-view.js';
import { approvalNotes, approveLabel, decidersLabel, pendingState } from './approval-notes.js';
import { type ButtonIntent, encodeButton } from './button-codec.js';
import {
  type MessageView,
  OUTCOME_WORDS,
  type ViewBlock,
  type ViewButton,
  type ViewField,
  type ViewOptions,
  type ViewOutcome,
} from './message-view-types.js';
import { inert } from './neutralize-pings.js';
import { patrolReportView } from './patrol-report-view.js';
import { planChecklistView } from './plan-checklist-view.js';
import { clip, splitText } from './split-text.js';
import type { ViewLimits } from './view-limits.js';
import { toolDataView } from './view-tables.js';
import { readableUtc, relativeFuture } from './view-time.js';

type Message<K extends OutboundMessage['kind']> = Extract<OutboundMessage, { kind: K }>;

export function messageView(message: OutboundMessage, options: ViewOptions): MessageView {
  switch (message.kind) {
    case 'status':
      return {
        kind: 'status',
        tone: message.tone,
        summary: line(message.text, 300),
        blocks: [
          { type: 'text', format: 'plain', text: inert(clip(message.text, options.limits.textChars)) },
        ],
        buttons: message.cancellable ? [cancelButton(message.runId)] : [],
        footer: inert(message.runId),
      };
    case 'text':
      return {
        kind: 'text',
        ...(message.tone ? { tone: message.tone } : {}),
        summary: line(message.text, 300),
        ...body(message.text, [], options.limits),
        buttons: [],
      };
    case 'result':
      return {
        kind: 'result',
        ...(message.ok ? {} : { tone: 'error' as const }),
        ...(message.refused ? { heading: 'Refused' } : {}),
        summary: line(message.text, 300),
        ...body(message.text, detailBlocks(message, options.limits), options.limits),
        buttons: [],
        // No run id here: the run's status message under the answer ("Done · run_…") carries it, once.
      };
    case 'question':
      return questionView(message, options);
    case 'approval':
      return approvalView(message, options);
    case 'plan':
      return planChecklistView(message, options.limits);
    case 'patrol_report':
      return patrolReportView(message, options.now, options.limits);
    case 'alert_group':
      return alertGroupView(message, options.limits);
  }
}

/** A question shows its choices as buttons until it is answered; then the answer, and no buttons. */
function questionView(message: Message<'question'>, { limits }: ViewOptions): MessageView {
  const heading = inert(clip(`Question for ${message.askedOf}`, limits.headingChars));
  const blocks = markdownBlocks(message.question, limits);
  if (message.answered?.closed) {
    const { by, at, closed } = message.answered;
    // As an approval card the run's end withdrew or let expire: the same outcome, in every adapter's words.
    return {
      kind: 'question',
      summary: line(
        `${closed === 'cancelled' ? `Cancelled by ${by}` : 'Expired unanswered'}: ${message.question}`,
        300,
      ),
      heading,
      blocks,
      buttons: [],
      outcome: closed === 'cancelled' ? { state: 'withdrawn', by: inert(by), at } : { state: 'expired', at },
    };
  }
  if (message.answered) {
    const { by, answer, at } = message.answered;
    return {
      kind: 'question',
      summary: line(`${by} answered ${answer}: ${message.question}`, 300),
      heading,
      blocks,
      buttons: [],
      outcome: { state: 'answered', by: inert(by), at, detail: inert(clip(answer, limits.fieldChars)) },
    };
  }
  // One place is kept for Cancel, on a row of its own.
  const buttons = message.choices.slice(0, limits.buttons - 1).map(
    (choice, index): ViewButton => ({
      id: encodeButton({ action: 'answer', runId: message.runId, choice: index }),
      label: inert(clip(choice, limits.buttonLabelChars)),
      style: 'default',
    }),
  );
  return {
    kind: 'question',
    summary: line(`Question for ${message.askedOf}: ${message.question}`, 300),
    heading,
    blocks,
    buttons: [...buttons, { ...cancelButton(message.runId), row: 1 }],
    footer: buttons.length > 0 ? 'Pick one, or reply in this thread.' : 'Reply in this thread to answer.',
  };
}

/**
 * An approval card: everything an approver weighs, and Approve/Deny until it is decided. A card whose approval
 * has expired shows that, with no buttons, whether or not the expiry was recorded yet.
 */
function approvalView(card: Message<'approval'>, { now, limits }: ViewOptions): MessageView {
  const outcome = approvalOutcome(card, now);
  const state = outcome ? OUTCOME_WORDS[outcome.state] : pendingState(card);
  const field = (label: string, value: string, extra: Partial<ViewField> = {}): ViewField => ({
    label,
    value: inert(clip(value, limits.fieldChars)),
    ...extra,
  });
  const expires = `${readableUtc(card.expiresAt)}, ${relativeFuture(card.expiresAt, now)}`;
  const blocks: ViewBlock[] = [
    {
      type: 'fields',
      fields: [
        field('Requested by', card.requester),
        field('Tool', card.tool, { code: true }),
        field(decidersLabel(card), card.approvers.join(', ') || 'nobody is set up to approve this'),
        field('Expires', expires, { at: card.expiresAt }),
        ...(card.progress && !outcome ? [field('Approvals', approvalProgressText(card.progress))] : []),
      ],
    },
    // What will happen comes first: the exact command line, and the tool's own word on its impact.
    ...(card.willRun ? codeBlocks(card.willRun, limits, 'Will run') : []),
    ...(card.impact
      ? [
          {
            type: 'text' as const,
            format: 'plain' as const,
            label: 'Impact',
            text: inert(clip(card.impact, limits.fieldChars)),
          },
        ]
      : []),
    ...(card.reason
      ? markdownBlocks(card.reason, limits, 'Reason')
      : [{ type: 'text' as const, format: 'plain' as const, label: 'Reason', text: 'No reason was given.' }]),
    ...codeBlocks(card.argumentsJson, limits, 'Arguments'),
    ...approvalNotes(card, limits.fieldChars),
  ];
  return {
    kind: 'approval',
    summary: line(`${state}: ${card.tool} requested by ${card.requester}`, 300),
    heading: inert(clip(`${state}: ${card.tool}`, limits.headingChars)),
    blocks,
    buttons: outcome ? [] : [...approvalButtons(card), cancelRunButton(card)],
    ...(outcome ? { outcome } : { expiresAt: card.expiresAt }),
    footer: inert(`${card.runId} · ${card.approvalId}`),
  };
}

/**
 * Approve (once), approve for each grant length, and deny on the first row; a row per offered pattern below it, so
 * an approver sees the wider choice set apart ("For 1h: any service in api, worker").
 */
/** Cancel the run: the requester and admins may, which the kernel checks at the click. */
function cancelButton(runId: string): ViewButton {
  return { id: encodeButton({ action: 'cancel', runId }), label: 'Cancel run', style: 'default' };
}

/** On an approval card, on a row below the approve, deny and grant buttons, so it is not taken for Deny. */
function cancelRunButton(card: Message<'approval'>): ViewButton {
  return { ...cancelButton(card.runId), row: (card.grants?.patterns.length ?? 0) + 1 };
}

function approvalButtons(card: Message<'approval'>): ViewButton[] {
  const approvalId = card.approvalId;
  const grants = card.grants;
  const forWhile = (grant: string, pattern?: string): ButtonIntent => ({
    action: 'approve',
    approvalId,
    grant: { for: grant, ...(pattern ? { pattern } : {}) },
  });
  return [
    {
      id: encodeButton({ action: 'approve', approvalId }),
      label: approveLabel(card),
      style: 'primary',
    },
    ...(grants?.durations ?? []).map((grant) => ({
      id: encodeButton(forWhile(grant)),
      label: `Approve for ${grant}`,
      style: 'default' as const,
    })),
    { id: encodeButton({ action: 'deny', approvalId }), label: 'Deny', style: 'danger' },
    ...(grants?.patterns ?? []).flatMap((pattern, index) =>
      grants!.durations.map((grant) => ({
        id: encodeButton(forWhile(grant, pattern.name)),
        label: line(`For ${grant}: ${pattern.text}`, 75),
        style: 'default' as const,
        row: index + 1,
      })),
    ),
  ];
}

/** "1 of 2 approvals: Bob" once someone has approved, else what the two-person rule asks for. */
export function approvalProgressText({
  needed,
  approvedBy,
}: {
  needed: number;
  approvedBy: string[];
}): string {
  if (approvedBy.length === 0) return `0 of ${needed} approvals: it needs ${needed} different approvers`;
  return `${approvedBy.length} of ${needed} approvals: ${approvedBy.join(', ')}`;
}

const OUTCOME_REASONS: Partial<Record<ViewOutcome['state'], string>> = {
  expired: 'nobody approved',
  withdrawn: 'the run was cancelled, so nothing was run',
};

function approvalOutcome(card: Message<'approval'>, now: number): ViewOutcome | undefined {
  const decision = card.decision;
  if (decision) {
    const why = decision.reason ?? OUTCOME_REASONS[decision.outcome];
    const reason = decision.granted ? [why, decision.granted].filter(Boolean).join('; ') : why;
    return {
      state: decision.outcome === 'approved' && card.confirm ? 'confirmed' : decision.outcome,
      ...(decision.outcome === 'expired' ? {} : { by: inert(decision.by) }),
      at: decision.at,
      ...(reason ? { detail: inert(clip(reason, 1_000)) } : {}),
    };
  }
  if (card.expiresAt <= now) return { state: 'expired', at: card.expiresAt, detail: 'nobody approved' };
  return undefined;
}

/** Text split to the platform's limit; past the attachment threshold, a preview and the whole as a file. */
function body(
  text: string,
  trailing: ViewBlock[],
  limits: ViewLimits,
): Pick<MessageView, 'blocks' | 'attachment'> {
  const long = text.length > limits.attachAfterChars;
  const blocks = [...markdownBlocks(long ? preview(text, limits.previewChars) : text, limits), ...trailing];
  // Platforms refuse a message with nothing in it.
  if (blocks.length === 0) blocks.push({ type: 'text', format: 'plain', text: '(no text)' });
  return {
    blocks,
    ...(long ? { attachment: { filename: 'output.txt', title: 'Full output', content: text } } : {}),
  };
}

/** The first lines, cut at a line break, and a pointer to the file holding the rest. */
function preview(text: string, chars: number): string {
  const head = text.slice(0, chars);
  const cut = head.lastIndexOf('\n') > chars / 2 ? head.slice(0, head.lastIndexOf('\n')) : head;
  const fences = cut.split('```').length - 1;
  const closed = fences % 2 === 1 ? `${cut}\n\`\`\`` : cut;
  const rest = text.length - cut.length;
  return `${closed}\n\n_… ${rest.toLocaleString('en-US')} more characters in the attached file._`;
}

function markdownBlocks(text: string, limits: ViewLimits, label?: string): ViewBlock[] {
  if (text.trim() === '') return [];
  return splitText(inert(text), { max: limits.textChars, ...weightOf(limits) }).map((chunk, index) => ({
    type: 'text',
    format: 'markdown',
    text: chunk,
    ...(label && index === 0 ? { label } : {}),
  }));
}

/** Code is split without fences; each adapter puts its own around every piece. */
function codeBlocks(code: string, limits: ViewLimits, label?: string): ViewBlock[] {
  // A backtick weighs one more: the fence escape may put a zero-width space after it (bot/chat/code-fence.ts).
  const weight = (character: string) => (limits.weight?.(character) ?? 1) + (character === '`' ? 1 : 0);
  return splitText(inert(code), { max: limits.textChars - 8, weight }).map((chunk, index) => ({
    type: 'code',
    code: chunk,
    ...(label && index === 0 ? { label } : {}),
  }));
}

/** Each tool's summary (unless the message already says it) and its data as tables and fields. */
function detailBlocks(message: Message<'result'>, limits: ViewLimits): ViewBlock[] {
  return (message.details ?? []).flatMap((detail): ViewBlock[] => {
    const data = toolDataView(detail.data, limits);
    const summary = detail.summary.trim() !== message.text.trim() ? detail.summary.trim() : '';
    const shows = data.tables.length > 0 || data.fields.length > 0 || data.raw !== undefined;
    if (!shows && summary === '') return [];
    return [
      {
        type: 'detail',
        tool: inert(clip(detail.tool, limits.headingChars)),
        ...(summary ? { summary: inert(clip(summary, limits.fieldChars)) } : {}),
        data,
      },
    ];
  });
}

function weightOf(limits: ViewLimits): { weight?: (character: string) => number } {
  return limits.weight ? { weight: limits.weight } : {};
}

function line(text: string, max: number): string {
  return inert(clip(text.replace(/\s+/g, ' ').trim(), max));
}
