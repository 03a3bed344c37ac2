// Each part of a neutral message view as Block Kit: sections, fields, tables, outcomes and buttons.
import type { types } from '@slack/bolt';
import type { MessageTone } from '../../agent/chat-port.js';
import { decodeButton } from '../chat/button-codec.js';
import { buttonRows } from '../chat/button-rows.js';
import { fencedCode, inlineCode } from '../chat/code-fence.js';
import {
  OUTCOME_WORDS,
  type ViewBlock,
  type ViewButton,
  type ViewChecklistItem,
  type ViewOutcome,
} from '../chat/message-view-types.js';
import { chunkLines } from '../chat/plan-checklist-view.js';
import { clip, splitText } from '../chat/split-text.js';
import { VIEW_LIMITS } from '../chat/view-limits.js';
import { cellText, monospaceTable, type ToolDataView, type ViewTable } from '../chat/view-tables.js';
import { SLACK_LIMITS } from './slack-limits.js';
import { escapeText, markdownToMrkdwn, safeMrkdwn, safePlainText } from './slack-mrkdwn.js';
import { slackDate } from './slack-time.js';

export type KnownBlock = types.KnownBlock;

export const TONE_EMOJI: Record<MessageTone, string> = {
  info: ':information_source:',
  working: ':hourglass_flowing_sand:',
  success: ':white_check_mark:',
  warning: ':warning:',
  error: ':x:',
};

const OUTCOME_EMOJI: Record<ViewOutcome['state'], string> = {
  approved: ':white_check_mark:',
  confirmed: ':white_check_mark:',
  denied: ':no_entry:',
  expired: ':hourglass:',
  withdrawn: ':no_entry_sign:',
  answered: ':speech_balloon:',
};

/**
 * Action ids our listener takes: every id `actionId` makes starts with `opsbot_` (Slack wants them unique within a
 * message, so answers carry their index and snoozes their length). Which button it was is read from its value
 * (decodeButton), so the listener needs no list of them that a new button could be missing from.
 */
export const BUTTON_ACTION_IDS = /^opsbot_/;

/** One view block as Block Kit; `prefix` (a tone emoji) goes in front of the first text. */
export function viewBlockToSlack(block: ViewBlock, prefix = ''): KnownBlock[] {
  switch (block.type) {
    case 'text': {
      const text = block.format === 'markdown' ? markdownToMrkdwn(block.text) : safeMrkdwn(block.text);
      return [section(`${prefix}${labelLine(block.label)}${text}`)];
    }
    case 'code':
      return [section(`${labelLine(block.label)}${fencedCode(escapeText(block.code))}`)];
    case 'fields':
      return fieldSections(
        block.fields.map((field) => {
          const value = field.code ? inlineCode(safeMrkdwn(field.value)) : safeMrkdwn(field.value);
          return {
            label: field.label,
            mrkdwn: field.at === undefined ? value : `${slackDate(field.at)} (${value})`,
          };
        }),
      );
    case 'detail':
      return detailBlocks(block.tool, block.summary, block.data);
    case 'checklist':
      return checklistBlocks(block.items);
  }
}

const STEP_EMOJI: Record<ViewChecklistItem['state'], string> = {
  waiting: ':white_circle:',
  running: ':hourglass_flowing_sand:',
  ok: ':white_check_mark:',
  failed: ':x:',
  refused: ':no_entry:',
  skipped: ':fast_forward:',
};

/** One line per step (its state's emoji, number and tool, the model's reason, the tool's summary), in sections. */
function checklistBlocks(items: readonly ViewChecklistItem[]): KnownBlock[] {
  const lines = items.map((item) => {
    const why = item.why ? ` — ${safeMrkdwn(item.why)}` : '';
    const note = item.note ? `\n        _${safeMrkdwn(item.note)}_` : '';
    return `${STEP_EMOJI[item.state]} *${safeMrkdwn(item.label)}*${why}${note}`;
  });
  return chunkLines(lines, SLACK_LIMITS.sectionText).map((chunk) => section(chunk));
}

function detailBlocks(tool: string, summary: string | undefined, data: ToolDataView): KnownBlock[] {
  const head = `*${safeMrkdwn(tool)}*${summary ? `: ${markdownToMrkdwn(summary)}` : ''}`;
  const blocks: KnownBlock[] = [context(head)];
  for (const table of data.tables) blocks.push(...tableBlocks(table));
  if (data.fields.length > 0) {
    blocks.push(
      ...fieldSections(data.fields.map((field) => ({ label: field.label, mrkdwn: safeMrkdwn(field.text) }))),
    );
  }
  return blocks;
}

/** A single row reads best as fields; more rows as aligned columns in code, split into sections. */
function tableBlocks(table: ViewTable): KnownBlock[] {
  const title = table.title ? `*${safeMrkdwn(table.title)}*\n` : '';
  const [row] = table.rows;
  if (
    table.rows.length === 1 &&
    row &&
    table.omittedRows === 0 &&
    table.columns.length <= SLACK_LIMITS.fieldsPerSection
  ) {
    return fieldSections(
      table.columns.map((column, index) => ({
        label: column.label,
        mrkdwn: safeMrkdwn(cellText(row[index]!)),
      })),
    );
  }
  const limits = VIEW_LIMITS.slack;
  return splitText(monospaceTable(table), { max: limits.textChars, weight: limits.weight }).map(
    (chunk, index) => section(`${index === 0 ? title : ''}${safeMrkdwn(chunk)}`),
  );
}

/** `Alice answered *prod*`, or `Approved by Bob at <date>: reason`. */
export function outcomeBlock(outcome: ViewOutcome): KnownBlock {
  const emoji = OUTCOME_EMOJI[outcome.state];
  if (outcome.state === 'answered') {
    return section(
      `${emoji} ${safeMrkdwn(outcome.by ?? 'Someone')} answered *${safeMrkdwn(outcome.detail ?? '')}*`,
    );
  }
  const by = outcome.by ? ` by ${safeMrkdwn(outcome.by)}` : '';
  const detail = outcome.detail === undefined ? '' : `: ${markdownToMrkdwn(outcome.detail)}`;
  return section(`${emoji} *${OUTCOME_WORDS[outcome.state]}*${by} at ${slackDate(outcome.at)}${detail}`);
}

/** Buttons in rows of 25, and a new row where a button's row changes; each value is the codec's id. */
export function buttonBlocks(buttons: readonly ViewButton[]): KnownBlock[] {
  return buttonRows(buttons, SLACK_LIMITS.actionsPerBlock).map((row, index) => ({
    type: 'actions',
    block_id: `opsbot_actions_${index}`,
    elements: row.map((button) => ({
      type: 'button' as const,
      action_id: actionId(button.id),
      text: {
        type: 'plain_text' as const,
        text: clip(safePlainText(button.label), SLACK_LIMITS.buttonText),
      },
      value: button.id,
      ...(button.style === 'default' ? {} : { style: button.style }),
    })),
  }));
}

export function actionId(buttonId: string): string {
  const intent = decodeButton(buttonId);
  if (!intent) throw new Error(`Not a button id from the codec: ${buttonId}`);
  switch (intent.action) {
    case 'answer':
      return `opsbot_answer_${intent.choice}`;
    case 'patrol_snooze':
      return `opsbot_patrol_snooze_${intent.snooze}`;
    case 'alert_silence':
      return `opsbot_alert_silence_${intent.silence}`;
    case 'approve':
      // Slack wants each button of a message to have its own action id.
      if (!intent.grant) return 'opsbot_approve';
      return `opsbot_grant_${intent.grant.for}${intent.grant.pattern ? `_${intent.grant.pattern}` : ''}`;
    default:
      return `opsbot_${intent.action}`;
  }
}

export function headerBlock(text: string): KnownBlock {
  return {
    type: 'header',
    text: { type: 'plain_text', text: clip(safePlainText(text), SLACK_LIMITS.headerText) },
  };
}

export function section(mrkdwn: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: clip(mrkdwn, SLACK_LIMITS.sectionText) } };
}

export function context(mrkdwn: string): KnownBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: clip(mrkdwn, SLACK_LIMITS.sectionText) }] };
}

function labelLine(label: string | undefined): string {
  return label ? `*${safeMrkdwn(label)}*\n` : '';
}

function fieldSections(fields: { label: string; mrkdwn: string }[]): KnownBlock[] {
  const sections: KnownBlock[] = [];
  for (let start = 0; start < fields.length; start += SLACK_LIMITS.fieldsPerSection) {
    sections.push({
      type: 'section',
      fields: fields.slice(start, start + SLACK_LIMITS.fieldsPerSection).map((field) => ({
        type: 'mrkdwn' as const,
        text: clip(`*${safeMrkdwn(field.label)}*\n${field.mrkdwn}`, SLACK_LIMITS.fieldText),
      })),
    });
  }
  return sections;
}
