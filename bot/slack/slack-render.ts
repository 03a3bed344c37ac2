// Renders each OutboundMessage through the neutral view to Block Kit: one or more messages, and a file if long.
import type { OutboundMessage } from '../../agent/chat-port.js';
import { messageView } from '../chat/message-view.js';
import type { MessageView } from '../chat/message-view-types.js';
import { clip, paginate } from '../chat/split-text.js';
import { VIEW_LIMITS } from '../chat/view-limits.js';
import {
  buttonBlocks,
  context,
  headerBlock,
  type KnownBlock,
  outcomeBlock,
  TONE_EMOJI,
  viewBlockToSlack,
} from './slack-blocks.js';
import { SLACK_LIMITS, slackViewLimits } from './slack-limits.js';
import { markdownToMrkdwn, safeMrkdwn } from './slack-mrkdwn.js';

export interface SlackMessagePayload {
  /** The notification and accessibility text; the blocks are what people read. */
  text: string;
  blocks: KnownBlock[];
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

export function renderOutbound(message: OutboundMessage, options: RenderOptions): RenderedOutbound {
  return renderView(
    messageView(message, { now: options.now, limits: slackViewLimits(options.fileThreshold) }),
  );
}

export function renderView(view: MessageView): RenderedOutbound {
  const blocks: KnownBlock[] = view.heading ? [headerBlock(view.heading)] : [];
  let prefix = toneEmoji(view);
  for (const block of view.blocks) {
    blocks.push(...viewBlockToSlack(block, block.type === 'text' ? prefix : ''));
    if (block.type === 'text') prefix = '';
  }
  if (view.outcome) blocks.push(outcomeBlock(view.outcome));
  blocks.push(...buttonBlocks(view.buttons));
  if (view.footer) blocks.push(context(safeMrkdwn(view.footer)));
  const pages = paginate(blocks, VIEW_LIMITS.slack.page, (block) => JSON.stringify(block).length);
  const summary = summaryText(view);
  return {
    messages: pages.map((page, index) => ({ text: index === 0 ? summary : '(continued)', blocks: page })),
    ...(view.attachment ? { file: view.attachment } : {}),
  };
}

/** Model text keeps its emphasis in notifications; opsbot's own lines are only escaped. */
function summaryText(view: MessageView): string {
  const tone = toneEmoji(view);
  const text =
    view.kind === 'text' || view.kind === 'result'
      ? markdownToMrkdwn(view.summary)
      : safeMrkdwn(view.summary);
  return clip(`${tone}${text}`, SLACK_LIMITS.sectionText);
}

/** A patrol report's heading carries its level's own icon; a tone emoji as well would say it twice. */
function toneEmoji(view: MessageView): string {
  return view.tone && view.kind !== 'patrol_report' ? `${TONE_EMOJI[view.tone]} ` : '';
}
