// Renders a neutral message view for Discord: embeds within 10 per message and 6,000 characters, buttons in rows
// of five, long output as a file, and never a ping (`allowedMentions.parse` is empty on every message).
import type {
  APIActionRowComponent,
  APIButtonComponentWithCustomId,
  APIEmbed,
  APIEmbedField,
} from 'discord.js';
import type { MessageTone, OutboundMessage } from '../../agent/chat-port.js';
import { buttonRows } from '../chat/button-rows.js';
import { fencedCode, inlineCode } from '../chat/code-fence.js';
import { messageView } from '../chat/message-view.js';
import {
  type MessageView,
  OUTCOME_WORDS,
  type ViewBlock,
  type ViewButton,
  type ViewChecklistItem,
  type ViewOutcome,
} from '../chat/message-view-types.js';
import { PLAN_STEP_ICONS } from '../chat/plan-checklist-view.js';
import { clip, paginate } from '../chat/split-text.js';
import { VIEW_LIMITS } from '../chat/view-limits.js';
import { monospaceTable, type ToolDataView } from '../chat/view-tables.js';

/** What Discord allows, beyond what the view already keeps to (VIEW_LIMITS.discord). */
export const DISCORD_LIMITS = {
  content: 2_000,
  embedDescription: 4_096,
  embedTitle: 256,
  embedFields: 25,
  fieldName: 256,
  fieldValue: 1_024,
  footer: 2_048,
  buttonsPerRow: 5,
  rows: 5,
} as const;

export interface DiscordMessagePayload {
  content?: string;
  embeds: APIEmbed[];
  components: APIActionRowComponent<APIButtonComponentWithCustomId>[];
  /** Nobody is ever pinged by what opsbot posts: not users, roles, @everyone or @here. */
  allowedMentions: { parse: [] };
  files?: { name: string; attachment: Buffer; description: string }[];
}

export interface RenderedDiscord {
  /** In order; the first one is the message later updates replace. */
  messages: DiscordMessagePayload[];
}

const TONE_COLOR: Record<MessageTone, number> = {
  info: 0x3b82f6,
  working: 0x6366f1,
  success: 0x22c55e,
  warning: 0xf59e0b,
  error: 0xef4444,
};

const TONE_EMOJI: Record<MessageTone, string> = {
  info: 'ℹ️',
  working: '⏳',
  success: '✅',
  warning: '⚠️',
  error: '❌',
};

const OUTCOME_EMOJI: Record<ViewOutcome['state'], string> = {
  approved: '✅',
  confirmed: '✅',
  denied: '⛔',
  expired: '⌛',
  withdrawn: '🚫',
  answered: '💬',
};

const BUTTON_STYLE = { primary: 1, default: 2, danger: 4 } as const;

export function renderDiscordOutbound(message: OutboundMessage, options: { now: number }): RenderedDiscord {
  return renderDiscordView(messageView(message, { now: options.now, limits: VIEW_LIMITS.discord }));
}

export function renderDiscordView(view: MessageView): RenderedDiscord {
  const files = view.attachment
    ? [
        {
          name: view.attachment.filename,
          attachment: Buffer.from(view.attachment.content, 'utf8'),
          description: view.attachment.title,
        },
      ]
    : undefined;
  // A status line is one short line that is edited in place: plain content reads best, and updates cleanly.
  if (view.kind === 'status') {
    const text = view.blocks.map((block) => (block.type === 'text' ? block.text : '')).join(' ');
    const tone = view.tone ? `${TONE_EMOJI[view.tone]} ` : '';
    const runId = view.footer ? ` · \`${view.footer}\`` : '';
    return {
      messages: [
        payload({
          content: clip(`${tone}${text}${runId}`, DISCORD_LIMITS.content),
          // While the run works or waits, Cancel run; none once it has ended.
          components: discordButtonRows(view.buttons),
        }),
      ],
    };
  }
  const embeds = viewEmbeds(view);
  const pages = paginate(embeds, VIEW_LIMITS.discord.page, embedSize);
  const components = discordButtonRows(view.buttons);
  return {
    messages: pages.map((page, index) =>
      payload({
        embeds: page,
        // Buttons and the file go with the first message: it is the one a click or an update finds.
        ...(index === 0 && components.length > 0 ? { components } : {}),
        ...(index === 0 && files ? { files } : {}),
      }),
    ),
  };
}

function payload(parts: Partial<DiscordMessagePayload>): DiscordMessagePayload {
  return { embeds: [], components: [], ...parts, allowedMentions: { parse: [] } };
}

/** The view as embeds: the first holds the heading, text, fields and outcome; each tool detail gets its own. */
function viewEmbeds(view: MessageView): APIEmbed[] {
  const color = view.tone ? TONE_COLOR[view.tone] : view.outcome ? 0x6b7280 : TONE_COLOR.info;
  const embeds: APIEmbed[] = [];
  let current: APIEmbed = {
    color,
    ...(view.heading ? { title: clip(view.heading, DISCORD_LIMITS.embedTitle) } : {}),
  };
  const push = () => {
    if (current.description || current.fields?.length || current.title) embeds.push(current);
    current = { color };
  };
  for (const block of view.blocks) {
    if (block.type === 'detail') {
      push();
      embeds.push(detailEmbed(block, color));
      continue;
    }
    if (block.type === 'fields') {
      const fields = block.fields.map(
        (field): APIEmbedField => ({
          name: clip(field.label, DISCORD_LIMITS.fieldName),
          value: clip(fieldValue(field), DISCORD_LIMITS.fieldValue) || '—',
          inline: field.value.length <= 40,
        }),
      );
      if ((current.fields?.length ?? 0) + fields.length > DISCORD_LIMITS.embedFields) push();
      current.fields = [...(current.fields ?? []), ...fields];
      continue;
    }
    if (block.type === 'checklist') {
      // Line by line, so that a long plan goes on in the next embed rather than past a description's limit.
      for (const line of checklistLines(block.items)) {
        if ((current.description?.length ?? 0) + line.length + 1 > DISCORD_LIMITS.embedDescription) push();
        current.description = current.description ? `${current.description}\n${line}` : line;
      }
      continue;
    }
    const text = blockText(block);
    if ((current.description?.length ?? 0) + text.length + 2 > DISCORD_LIMITS.embedDescription) push();
    current.description = current.description ? `${current.description}\n\n${text}` : text;
  }
  if (view.outcome) {
    const line = outcomeLine(view.outcome);
    if ((current.description?.length ?? 0) + line.length + 2 > DISCORD_LIMITS.embedDescription) push();
    current.description = current.description ? `${current.description}\n\n${line}` : line;
  }
  push();
  const last = embeds.at(-1) ?? { color };
  if (embeds.length === 0) embeds.push(last);
  if (view.footer) last.footer = { text: clip(view.footer, DISCORD_LIMITS.footer) };
  if (view.expiresAt !== undefined) last.timestamp = new Date(view.expiresAt).toISOString();
  return embeds;
}

/** A step per line: its state's icon, number and tool in bold, the model's reason, the tool's summary quoted. */
function checklistLines(items: readonly ViewChecklistItem[]): string[] {
  return items.map((item) => {
    const why = item.why ? ` — ${escapeMarkdown(item.why)}` : '';
    const note = item.note ? `\n> ${escapeMarkdown(item.note)}` : '';
    return clip(
      `${PLAN_STEP_ICONS[item.state]} **${escapeMarkdown(item.label)}**${why}${note}`,
      DISCORD_LIMITS.embedDescription,
    );
  });
}

function blockText(block: Exclude<ViewBlock, { type: 'fields' | 'detail' | 'checklist' }>): string {
  const label = block.label ? `**${block.label}**\n` : '';
  if (block.type === 'code') return `${label}${fencedCode(block.code)}`;
  return `${label}${block.format === 'plain' ? escapeMarkdown(block.text) : block.text}`;
}

function fieldValue(field: { value: string; code?: boolean; at?: number }): string {
  if (field.at !== undefined)
    return `<t:${Math.floor(field.at / 1000)}:f> (<t:${Math.floor(field.at / 1000)}:R>)`;
  return field.code ? inlineCode(field.value) : escapeMarkdown(field.value);
}

function detailEmbed(block: Extract<ViewBlock, { type: 'detail' }>, color: number): APIEmbed {
  const parts = [block.summary ? block.summary : ''];
  for (const table of block.data.tables) {
    const title = table.title ? `**${table.title}**\n` : '';
    // The table comes fenced, with its "… and N more rows" line inside the fence.
    parts.push(`${title}${monospaceTable(table)}`);
  }
  if (block.data.raw) parts.push(fencedCode(block.data.raw, 'json'));
  return {
    color,
    title: clip(block.tool, DISCORD_LIMITS.embedTitle),
    description: clip(parts.filter(Boolean).join('\n\n'), DISCORD_LIMITS.embedDescription),
    ...(block.data.fields.length > 0 ? { fields: dataFields(block.data.fields) } : {}),
  };
}

function dataFields(fields: ToolDataView['fields']): APIEmbedField[] {
  return fields.slice(0, DISCORD_LIMITS.embedFields).map((field) => ({
    name: clip(field.label, DISCORD_LIMITS.fieldName),
    value: clip(escapeMarkdown(field.text), DISCORD_LIMITS.fieldValue) || '—',
    inline: true,
  }));
}

function outcomeLine(outcome: ViewOutcome): string {
  const when = `<t:${Math.floor(outcome.at / 1000)}:f>`;
  const by = outcome.by ? ` by **${escapeMarkdown(outcome.by)}**` : '';
  if (outcome.state === 'answered')
    return `${OUTCOME_EMOJI.answered} Answered${by}: **${escapeMarkdown(outcome.detail ?? '')}**`;
  const detail = outcome.detail ? ` · ${escapeMarkdown(outcome.detail)}` : '';
  return `${OUTCOME_EMOJI[outcome.state]} **${OUTCOME_WORDS[outcome.state]}**${by} at ${when}${detail}`;
}

/** Rows of five at most, five rows at most: Discord refuses a message with more. */
function discordButtonRows(
  buttons: readonly ViewButton[],
): APIActionRowComponent<APIButtonComponentWithCustomId>[] {
  return buttonRows(buttons, DISCORD_LIMITS.buttonsPerRow)
    .slice(0, DISCORD_LIMITS.rows)
    .map((row) => ({
      type: 1,
      components: row.map((button) => ({
        type: 2,
        style: BUTTON_STYLE[button.style],
        custom_id: button.id,
        label: clip(button.label, VIEW_LIMITS.discord.buttonLabelChars),
      })),
    }));
}

/** What Discord counts against the 6,000 characters of a message's embeds. */
function embedSize(embed: APIEmbed): number {
  const fields = (embed.fields ?? []).reduce((sum, field) => sum + field.name.length + field.value.length, 0);
  return (
    (embed.title?.length ?? 0) + (embed.description?.length ?? 0) + fields + (embed.footer?.text.length ?? 0)
  );
}

/** opsbot's own text is shown as written: markdown characters in it are not formatting. */
function escapeMarkdown(text: string): string {
  return text.replace(/([\\*_~`|])/g, '\\$1').replace(/^([>#-])/gm, '\\$1');
}
