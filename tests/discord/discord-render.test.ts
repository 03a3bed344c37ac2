// Discord rendering of the neutral views: cards with buttons, closed cards, limits, long output and no pings.
import { describe, expect, it } from 'vitest';
import { decodeButton } from '../../bot/chat/button-codec.js';
import {
  DISCORD_LIMITS,
  type DiscordMessagePayload,
  renderDiscordOutbound,
} from '../../bot/discord/discord-render.js';
import { reviewedApprovalCard, sampleApprovalCard, sampleQuestion } from '../fixtures/outbound-messages.js';

const NOON = Date.UTC(2026, 0, 1, 12, 0);

function embedChars(message: DiscordMessagePayload): number {
  return message.embeds.reduce(
    (sum, embed) =>
      sum +
      (embed.title?.length ?? 0) +
      (embed.description?.length ?? 0) +
      (embed.footer?.text.length ?? 0) +
      (embed.fields ?? []).reduce((total, field) => total + field.name.length + field.value.length, 0),
    0,
  );
}

function allText(messages: DiscordMessagePayload[]): string {
  return JSON.stringify(messages.map((message) => ({ content: message.content, embeds: message.embeds })));
}

describe('Discord rendering', () => {
  it('renders an approval card as an embed with the exact arguments and Approve/Deny buttons holding opaque ids', () => {
    const { messages } = renderDiscordOutbound(sampleApprovalCard, { now: NOON });
    expect(messages).toHaveLength(1);
    const [card] = messages;
    expect(card!.allowedMentions).toEqual({ parse: [] });
    expect(card!.embeds[0]!.title).toContain('restart_service');
    expect(allText(messages)).toContain('\\"service\\": \\"api\\"');
    const buttons = card!.components.flatMap((row) => row.components);
    expect(buttons.map((button) => button.label)).toEqual(['Approve', 'Deny', 'Cancel run']);
    for (const button of buttons) {
      expect('custom_id' in button && button.custom_id.length).toBeLessThanOrEqual(100);
      expect('custom_id' in button && decodeButton(button.custom_id)).toMatchObject(
        button.label === 'Cancel run'
          ? { action: 'cancel', runId: sampleApprovalCard.runId }
          : { approvalId: sampleApprovalCard.approvalId },
      );
    }
    expect(card!.embeds.at(-1)!.footer?.text).toContain('run_1');
  });

  it('shows what an approval will run and its impact', () => {
    const { messages } = renderDiscordOutbound(
      { ...sampleApprovalCard, willRun: 'systemctl restart api.service', impact: 'about 20 s of 502s' },
      { now: NOON },
    );
    const shown = allText(messages);
    expect(shown).toContain('Will run');
    expect(shown).toContain('systemctl restart api.service');
    expect(shown).toContain('Impact');
    expect(shown).toContain('about 20 s of 502s');
  });

  it("shows the reviewer's verdict, a contradicted one marked as a warning, and keeps the buttons", () => {
    const weak = allText(renderDiscordOutbound(reviewedApprovalCard('weak'), { now: NOON }).messages);
    expect(weak).toContain('Reviewer');
    expect(weak).toContain('weak: the health check failed 3 times; the log shows OOM kills');
    expect(weak).not.toContain('⚠️');
    const { messages } = renderDiscordOutbound(reviewedApprovalCard('contradicted'), { now: NOON });
    expect(allText(messages)).toContain('⚠️ Reviewer (advice, not an approval)');
    expect(allText(messages)).toContain('⚠️ contradicted: the health check failed 3 times');
    const buttons = messages[0]!.components.flatMap((row) => row.components);
    expect(buttons.map((button) => button.label)).toEqual(['Approve', 'Deny', 'Cancel run']);
    expect(allText(renderDiscordOutbound(sampleApprovalCard, { now: NOON }).messages)).not.toContain(
      'Reviewer',
    );
  });

  it('shows an expired or decided card with its outcome and no buttons', () => {
    const expired = renderDiscordOutbound(sampleApprovalCard, { now: sampleApprovalCard.expiresAt + 1 });
    expect(expired.messages[0]!.components).toEqual([]);
    expect(allText(expired.messages)).toContain('Expired');
    expect(allText(expired.messages)).toContain('nobody approved');
    const withdrawn = renderDiscordOutbound(
      { ...sampleApprovalCard, decision: { outcome: 'withdrawn', by: 'Alice', at: NOON } },
      { now: NOON },
    );
    expect(withdrawn.messages[0]!.components).toEqual([]);
    expect(allText(withdrawn.messages)).toContain('Cancelled** by **Alice**');
  });

  it('gives a working status line a Cancel run button, and an ended one none', () => {
    const working = renderDiscordOutbound(
      { kind: 'status', runId: 'run_1', text: 'Working on it…', tone: 'working', cancellable: true },
      { now: NOON },
    ).messages[0]!;
    const buttons = working.components.flatMap((row) => row.components);
    expect(buttons.map((button) => button.label)).toEqual(['Cancel run']);
    expect('custom_id' in buttons[0]! && decodeButton(buttons[0].custom_id)).toEqual({
      action: 'cancel',
      runId: 'run_1',
    });
    const ended = renderDiscordOutbound(
      { kind: 'status', runId: 'run_1', text: 'Done', tone: 'success' },
      { now: NOON },
    ).messages[0]!;
    expect(ended.components).toEqual([]);
  });

  it('renders a question with a button per choice, and the answer once answered', () => {
    const open = renderDiscordOutbound(sampleQuestion, { now: NOON });
    expect(
      open.messages[0]!.components.flatMap((row) => row.components).map((button) => button.label),
    ).toEqual(['staging', 'prod', 'Cancel run']);
    const answered = renderDiscordOutbound(
      { ...sampleQuestion, answered: { by: 'Alice', answer: 'prod', at: NOON } },
      { now: NOON },
    );
    expect(answered.messages[0]!.components).toEqual([]);
    expect(allText(answered.messages)).toContain('Answered by **Alice**: **prod**');
  });

  it('keeps every message within 2,000 characters of content, 10 embeds and 6,000 characters of embeds', () => {
    const text = Array.from({ length: 120 }, (_, index) => `line ${index}: ${'x'.repeat(36)}`).join('\n');
    expect(text.length).toBeGreaterThan(5_000);
    const { messages } = renderDiscordOutbound(
      { kind: 'result', runId: 'run_2', text, ok: true },
      { now: NOON },
    );
    for (const message of messages) {
      expect(message.content?.length ?? 0).toBeLessThanOrEqual(DISCORD_LIMITS.content);
      expect(message.embeds.length).toBeLessThanOrEqual(10);
      expect(embedChars(message)).toBeLessThanOrEqual(6_000);
      for (const embed of message.embeds)
        expect(embed.description?.length ?? 0).toBeLessThanOrEqual(DISCORD_LIMITS.embedDescription);
    }
    // Nothing is lost: every line is shown somewhere.
    expect(allText(messages)).toContain('line 119:');
  });

  it('attaches 20,000 characters as a file, with a preview in the message', () => {
    const text = 'y'.repeat(20_000);
    const { messages } = renderDiscordOutbound(
      { kind: 'result', runId: 'run_3', text, ok: true },
      { now: NOON },
    );
    const [first] = messages;
    expect(first!.files).toHaveLength(1);
    expect(first!.files![0]!.attachment.toString('utf8')).toBe(text);
    expect(embedChars(first!)).toBeLessThan(6_000);
  });

  it('never pings: @everyone and role mentions in model text are made inert, and parse is empty', () => {
    const { messages } = renderDiscordOutbound(
      {
        kind: 'result',
        runId: 'run_4',
        text: 'Paging @everyone and <@&123456789012345678> and <@98765>',
        ok: true,
      },
      { now: NOON },
    );
    const shown = allText(messages);
    expect(shown).not.toMatch(/(^|[^\u200b])@everyone/);
    expect(shown).not.toContain('<@&123456789012345678>');
    expect(messages.every((message) => message.allowedMentions.parse.length === 0)).toBe(true);
  });

  it('shows a status as one line of content with the run id, for clean in-place updates', () => {
    const { messages } = renderDiscordOutbound(
      { kind: 'status', runId: 'run_5', text: 'Working on it…', tone: 'working' },
      { now: NOON },
    );
    expect(messages).toEqual([
      { content: '⏳ Working on it… · `run_5`', embeds: [], components: [], allowedMentions: { parse: [] } },
    ]);
  });

  it('shows tool tables as monospace blocks in an embed of their own', () => {
    const { messages } = renderDiscordOutbound(
      {
        kind: 'result',
        runId: 'run_6',
        text: '/ is 23% full',
        ok: true,
        details: [
          {
            tool: 'disk_usage',
            summary: '/ is 23% full',
            data: {
              filesystems: [
                { path: '/', used_percent: 23 },
                { path: '/var', used_percent: 71 },
              ],
            },
          },
        ],
      },
      { now: NOON },
    );
    const detail = messages[0]!.embeds.find((embed) => embed.title === 'disk_usage');
    expect(detail?.description).toMatch(/```\n[\s\S]*\/var[\s\S]*71[\s\S]*```/);
  });
  it('labels result facts for people, with units on their values', () => {
    const { messages } = renderDiscordOutbound(
      {
        kind: 'result',
        runId: 'run_7',
        text: 'The host is fine.',
        ok: true,
        details: [{ tool: 'system_stats', summary: 'fine', data: { cpus: 4, uptime_seconds: 90_000 } }],
      },
      { now: NOON },
    );
    const detail = messages[0]!.embeds.find((embed) => embed.title === 'system_stats');
    expect(detail?.fields).toEqual([
      { name: 'CPUs', value: '4', inline: true },
      { name: 'Up for', value: '1d 1h', inline: true },
    ]);
  });

  it('shows a tool table as one fenced block, with its "more rows" line inside it once', () => {
    const rows = Array.from({ length: 60 }, (_, index) => ({ path: `/data/${index}`, used: `${index}%` }));
    const { messages } = renderDiscordOutbound(
      {
        kind: 'result',
        runId: 'run_1',
        text: 'Disk usage',
        ok: true,
        details: [{ tool: 'disk_usage', summary: '60 mounts', data: { rows } }],
      },
      { now: NOON },
    );
    const table = messages.flatMap((message) => message.embeds).find((embed) => embed.title === 'disk_usage');
    const description = table?.description ?? '';
    expect(description.split('```').length - 1).toBe(2);
    expect(description).toMatch(/^[\s\S]*```\npath +used\n/);
    expect(description.match(/more rows/g)).toHaveLength(1);
  });
});
