// The approval card in Block Kit: everything an approver needs, and Approve/Deny buttons until it is decided.
import type { types } from '@slack/bolt';
import type { OutboundMessage } from '../../agent/chat-port.js';
import { buttonValue } from '../chat-event.js';
import { clip, SLACK_LIMITS, splitMrkdwn } from './slack-limits.js';
import { escapeText, markdownToMrkdwn, safeMrkdwn, safePlainText } from './slack-mrkdwn.js';
import { readableUtc, relativeFuture, slackDate } from './slack-time.js';

type ApprovalMessage = Extract<OutboundMessage, { kind: 'approval' }>;

export const APPROVE_ACTION_ID = 'opsbot_approve';
export const DENY_ACTION_ID = 'opsbot_deny';

const OUTCOME_LABELS = {
  approved: { emoji: ':white_check_mark:', word: 'Approved' },
  denied: { emoji: ':no_entry:', word: 'Denied' },
  expired: { emoji: ':hourglass:', word: 'Expired' },
  withdrawn: { emoji: ':no_entry_sign:', word: 'Cancelled' },
} as const;

export function approvalCardText(card: ApprovalMessage): string {
  const state = card.decision ? OUTCOME_LABELS[card.decision.outcome].word : 'Approval needed';
  return safeMrkdwn(`${state}: ${card.tool} requested by ${card.requester}`);
}

export function approvalCardBlocks(card: ApprovalMessage, now: number): types.KnownBlock[] {
  const heading = card.decision
    ? `${OUTCOME_LABELS[card.decision.outcome].word}: ${card.tool}`
    : `Approval needed: ${card.tool}`;
  const field = (label: string, value: string) => ({
    type: 'mrkdwn' as const,
    text: clip(`*${label}*\n${value}`, SLACK_LIMITS.fieldText),
  });
  const blocks: types.KnownBlock[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: clip(safePlainText(heading), SLACK_LIMITS.headerText) },
    },
    {
      type: 'section',
      fields: [
        field('Requested by', safeMrkdwn(card.requester)),
        field('Tool', `\`${safeMrkdwn(card.tool)}\``),
        field('Approvers', safeMrkdwn(card.approvers.join(', ') || 'nobody is set up to approve this')),
        field(
          'Expires',
          `${slackDate(card.expiresAt)} (${readableUtc(card.expiresAt)}, ${relativeFuture(card.expiresAt, now)})`,
        ),
      ],
    },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clip(`*Reason*\n${card.reason ? markdownToMrkdwn(card.reason) : '_none given_'}`, 3000),
      },
    },
    { type: 'section', text: { type: 'mrkdwn', text: '*Arguments*' } },
    ...splitMrkdwn(`\`\`\`\n${escapeText(card.argumentsJson)}\n\`\`\``).map((text) => ({
      type: 'section' as const,
      text: { type: 'mrkdwn' as const, text },
    })),
  ];
  blocks.push(card.decision ? decisionBlock(card.decision) : buttons(card.approvalId));
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `${safeMrkdwn(card.runId)} · ${safeMrkdwn(card.approvalId)}` }],
  });
  return blocks;
}

/** Button values carry only the approval id: the click is checked against the stored approval, never the card. */
function buttons(approvalId: string): types.KnownBlock {
  return {
    type: 'actions',
    block_id: 'opsbot_approval',
    elements: [
      {
        type: 'button',
        action_id: APPROVE_ACTION_ID,
        style: 'primary',
        text: { type: 'plain_text', text: 'Approve' },
        value: buttonValue('approve', approvalId),
      },
      {
        type: 'button',
        action_id: DENY_ACTION_ID,
        style: 'danger',
        text: { type: 'plain_text', text: 'Deny' },
        value: buttonValue('deny', approvalId),
      },
    ],
  };
}

function decisionBlock(decision: NonNullable<ApprovalMessage['decision']>): types.KnownBlock {
  const label = OUTCOME_LABELS[decision.outcome];
  const by = decision.outcome === 'expired' ? '' : ` by ${safeMrkdwn(decision.by)}`;
  const after = decision.outcome === 'expired' ? ', nobody approved' : '';
  const reason = decision.reason ? `: ${markdownToMrkdwn(decision.reason)}` : '';
  return {
    type: 'section',
    text: {
      type: 'mrkdwn',
      text: clip(
        `${label.emoji} *${label.word}*${by} at ${slackDate(decision.at)} (${readableUtc(decision.at)})${after}${reason}`,
        3000,
      ),
    },
  };
}
