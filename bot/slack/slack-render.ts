// Renders each OutboundMessage to Block Kit: one or more Slack messages, or a short preview plus a file snippet.
import type { types } from '@slack/bolt';
import type { MessageTone, OutboundMessage } from '../../agent/chat-port.js';
import { approvalCardBlocks, approvalCardText } from './slack-approval-card.js';
import { clip, paginateBlocks, SLACK_LIMITS, splitMrkdwn } from './slack-limits.js';
import { markdownToMrkdwn, safeMrkdwn, safePlainText } from './slack-mrkdwn.js';
import { detailBlocks } from './slack-tables.js';

export interface SlackMessagePayload {
  /** The notification and accessibility text; the blocks are what people read. */
  text: string;
  blocks: types.KnownBlock[];
}

export interface SlackFileSnippet {
  filename: string;
  title: string;
  content: string;
}

export interface RenderedOutbound {
  /** In order; the first one is the message later updates replace. */
  messages: SlackMessagePayload[];
  /** Output too long to read in messages goes up as a file in the same thread. */
  file?: SlackFileSnippet;
}

export interface RenderOptions {
  now: number;
  /** Text longer than this (characters) becomes a file snippet with a preview. */
  fileThreshold?: number;
}

export const ANSWER_ACTION_PREFIX = 'opsbot_answer';
export const DEFAULT_FILE_THRESHOLD = 12_000;
const PREVIEW_CHARS = 1_500;

export const TONE_EMOJI: Record<MessageTone, string> = {
  info: ':information_source:',
  working: ':hourglass_flowing_sand:',
  success: ':white_check_mark:',
  warning: ':warning:',
  error: ':x:',
};

export function renderOutbound(message: OutboundMessage, options: RenderOptions): RenderedOutbound {
  switch (message.kind) {
    case 'status':
      return single(`${TONE_EMOJI[message.tone]} ${safeMrkdwn(message.text)}`, [
        section(`${TONE_EMOJI[message.tone]} ${safeMrkdwn(message.text)}`),
        runContext(message.runId),
      ]);
    case 'question': {
      if (message.answered) {
        const { text, blocks } = answeredQuestion(
          message.question,
          message.answered.answer,
          message.answered.by,
        );
        return single(text, blocks);
      }
      return single(
        safeMrkdwn(`Question for ${message.askedOf}: ${message.question}`),
        questionBlocks(message),
      );
    }
    case 'approval':
      return single(approvalCardText(message), approvalCardBlocks(message, options.now));
    case 'text':
      return body(message.text, message.tone ? `${TONE_EMOJI[message.tone]} ` : '', [], options);
    case 'result':
      return body(
        message.text,
        message.ok ? '' : `${TONE_EMOJI.error} `,
        [...(message.details ?? []).flatMap(detailBlocks), runContext(message.runId)],
        options,
      );
  }
}

function single(text: string, blocks: types.KnownBlock[]): RenderedOutbound {
  return { messages: [{ text: clip(text, 3_000), blocks }] };
}

/** Text, then trailing blocks; split into sections and messages, or moved to a file past the threshold. */
function body(
  text: string,
  prefix: string,
  trailing: types.KnownBlock[],
  options: RenderOptions,
): RenderedOutbound {
  const threshold = options.fileThreshold ?? DEFAULT_FILE_THRESHOLD;
  const long = text.length > threshold;
  const shown = long ? preview(text) : text;
  const mrkdwn = `${prefix}${markdownToMrkdwn(shown)}`;
  const sections = mrkdwn.trim() === '' ? [] : splitMrkdwn(mrkdwn).map(section);
  const blocks = [...sections, ...trailing];
  // Slack refuses a message with neither text nor blocks.
  if (blocks.length === 0) blocks.push(section('_(no text)_'));
  const pages = paginateBlocks(blocks);
  const summary = clip(markdownToMrkdwn(clip(text.replace(/\s+/g, ' '), 300)), 3_000);
  const rendered: RenderedOutbound = {
    messages: pages.map((page, index) => ({ text: index === 0 ? summary : '(continued)', blocks: page })),
  };
  if (long) {
    rendered.file = { filename: 'output.txt', title: 'Full output', content: text };
  }
  return rendered;
}

/** The first lines, cut at a line break, and a pointer to the file holding the rest. */
function preview(text: string): string {
  const head = text.slice(0, PREVIEW_CHARS);
  const cut = head.lastIndexOf('\n') > PREVIEW_CHARS / 2 ? head.slice(0, head.lastIndexOf('\n')) : head;
  const fences = cut.split('```').length - 1;
  const closed = fences % 2 === 1 ? `${cut}\n\`\`\`` : cut;
  const rest = text.length - cut.length;
  return `${closed}\n\n_… ${rest.toLocaleString('en-US')} more characters in the attached file._`;
}

function questionBlocks(message: Extract<OutboundMessage, { kind: 'question' }>): types.KnownBlock[] {
  const blocks: types.KnownBlock[] = [
    section(
      clip(
        `:question: *Question for ${safeMrkdwn(message.askedOf)}*\n${markdownToMrkdwn(message.question)}`,
        SLACK_LIMITS.sectionText,
      ),
    ),
  ];
  const choices = message.choices.slice(0, SLACK_LIMITS.actionsPerBlock * 2);
  for (let start = 0; start < choices.length; start += SLACK_LIMITS.actionsPerBlock) {
    blocks.push({
      type: 'actions',
      block_id: `opsbot_question_${start}`,
      // Slack wants action ids unique within a message, so each button's id carries its index.
      elements: choices.slice(start, start + SLACK_LIMITS.actionsPerBlock).map((choice, offset) => ({
        type: 'button' as const,
        action_id: `${ANSWER_ACTION_PREFIX}_${start + offset}`,
        text: { type: 'plain_text' as const, text: clip(safePlainText(choice), SLACK_LIMITS.buttonText) },
        value: `answer:${message.runId}:${start + offset}`,
      })),
    });
  }
  blocks.push({
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: choices.length > 0 ? 'Pick one, or reply in this thread.' : 'Reply in this thread to answer.',
      },
    ],
  });
  return blocks;
}

/** A question once answered (by a button or a reply): the question, who answered what, and no buttons. */
export function answeredQuestion(question: string, answer: string, by: string): SlackMessagePayload {
  const line = `:speech_balloon: ${safeMrkdwn(by)} answered *${safeMrkdwn(answer)}*`;
  return {
    text: clip(safeMrkdwn(`${by} answered ${answer}: ${question}`), 3_000),
    blocks: [
      section(clip(`:question: ${markdownToMrkdwn(question)}`, SLACK_LIMITS.sectionText)),
      { type: 'context', elements: [{ type: 'mrkdwn', text: clip(line, 3_000) }] },
    ],
  };
}

function section(text: string): types.KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

function runContext(runId: string): types.KnownBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: safeMrkdwn(runId) }] };
}
