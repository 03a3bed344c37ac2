// One patrol_report message, rendered for Slack (Block Kit), the playground (the view the page gets) and Discord
// (embeds): the same heading, check lines, summary, footer and buttons everywhere, within each platform's limits.
import { describe, expect, it } from 'vitest';
import type { PatrolReportLine, PatrolReportMessage } from '../../agent/chat-port.js';
import { MAX_BUTTON_ID_CHARS } from '../../bot/chat/button-codec.js';
import { VIEW_LIMITS } from '../../bot/chat/view-limits.js';
import { readableUtc } from '../../bot/chat/view-time.js';
import { DISCORD_LIMITS, renderDiscordOutbound } from '../../bot/discord/discord-render.js';
import { presentMessage } from '../../bot/playground/playground-view.js';
import { renderOutbound } from '../../bot/slack/slack-render.js';
import { renderDiscordMessage } from '../discord/render-discord-message.js';
import type { FakeDiscordMessage } from '../fakes/discord/fake-discord.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0);
const OPEN_BUTTONS = ['Ack', 'Snooze 1h', 'Snooze 4h', 'Snooze 1d', 'Run again'];

function line(index: number, keys: Partial<PatrolReportLine> = {}): PatrolReportLine {
  return {
    checkId: `check-${String(index).padStart(2, '0')}`,
    tool: 'http_check',
    change: 'firing',
    severity: 'critical',
    detail: `GET https://service-${index}.internal/health answered 503 (expected 200) after 41 ms`,
    previous: 'ok',
    since: NOW - (index + 5) * 60_000,
    ...keys,
  };
}

const open: PatrolReportMessage = {
  kind: 'patrol_report',
  reportId: 'rpt_0123456789abcdef',
  patrol: 'web',
  runId: 'run_patrol_0001',
  level: 'critical',
  lines: [line(1), line(2, { severity: 'warn', change: 'severity_changed', previous: 'warn' })],
  summary: 'Two health checks fail since the 11:50 deploy.',
  late: true,
  nextRunAt: NOW + 5 * 60_000,
  timezone: 'Europe/Berlin',
  buttons: true,
};

const acked: PatrolReportMessage = {
  ...open,
  late: false,
  acked: { by: 'Alice', at: NOW - 60_000 },
  snoozedUntil: NOW + 3_600_000,
};

const resolved: PatrolReportMessage = {
  ...open,
  level: 'resolved',
  // Fine for three days before it failed; the report was open ten minutes.
  lines: [line(1, { change: 'resolved', previous: 'critical', since: NOW - 3 * 86_400_000 })],
  openedAt: NOW - 10 * 60_000,
  resolvedAt: NOW,
  summary: undefined,
  nextRunAt: undefined,
  late: false,
  buttons: false,
} as PatrolReportMessage;

const thirty: PatrolReportMessage = {
  ...open,
  lines: Array.from({ length: 30 }, (_, index) =>
    line(index, { detail: `${'a long figure and its threshold, '.repeat(6)}#${index}` }),
  ),
};

interface Shown {
  text: string;
  buttons: string[];
  ids: string[];
}

/** Each platform's rendering read back as text, with its limits checked on the way. */
const PLATFORMS: Record<string, (message: PatrolReportMessage) => Shown> = {
  slack(message) {
    const rendered = renderOutbound(message, { now: NOW });
    expect(rendered.file).toBeUndefined();
    const shown = rendered.messages.map((page) => {
      // The heading's icon says the level once: no tone emoji in front of the text or the notification.
      expect(JSON.stringify(page)).not.toMatch(/:(x|warning|white_check_mark):/);
      expect(page.blocks.length).toBeLessThanOrEqual(50);
      for (const block of page.blocks as { type: string; text?: { text: string } }[]) {
        if (block.type === 'header') expect(block.text!.text.length).toBeLessThanOrEqual(150);
        if (block.type === 'section') expect(block.text!.text.length).toBeLessThanOrEqual(3_000);
      }
      return renderSlackMessage(page);
    });
    const ids = rendered.messages.flatMap((page) =>
      (page.blocks as { type: string; elements?: { value?: string; action_id?: string }[] }[]).flatMap(
        (block) => (block.type === 'actions' ? (block.elements ?? []).map((b) => b.value ?? '') : []),
      ),
    );
    return { text: shown.map((page) => page.text).join('\n'), buttons: shown.flatMap((p) => p.buttons), ids };
  },
  playground(message) {
    const { view } = presentMessage(
      { id: 'm1', channelId: 'ops', author: 'bot', at: NOW, content: message } as never,
      NOW,
    );
    expect(view!.heading!.length).toBeLessThanOrEqual(VIEW_LIMITS.playground.headingChars);
    const text = [
      view!.heading,
      ...view!.blocks.map((block) => (block.type === 'text' ? `${block.label ?? ''}\n${block.text}` : '')),
      view!.footer,
    ].join('\n');
    return {
      text,
      buttons: view!.buttons.map((button) => button.label),
      ids: view!.buttons.map((button) => button.id),
    };
  },
  discord(message) {
    const rendered = renderDiscordOutbound(message, { now: NOW });
    const shown = rendered.messages.map((page) => {
      expect(page.allowedMentions).toEqual({ parse: [] });
      expect(page.embeds.length).toBeLessThanOrEqual(10);
      const size = page.embeds.reduce(
        (sum, embed) =>
          sum +
          (embed.title?.length ?? 0) +
          (embed.description?.length ?? 0) +
          (embed.footer?.text.length ?? 0),
        0,
      );
      expect(size).toBeLessThanOrEqual(6_000);
      for (const embed of page.embeds) {
        expect(embed.title?.length ?? 0).toBeLessThanOrEqual(DISCORD_LIMITS.embedTitle);
        expect(embed.description?.length ?? 0).toBeLessThanOrEqual(DISCORD_LIMITS.embedDescription);
      }
      return renderDiscordMessage({ content: '', ...page } as unknown as FakeDiscordMessage);
    });
    const ids = rendered.messages.flatMap((page) =>
      page.components.flatMap((row) => row.components.map((button) => button.custom_id)),
    );
    return { text: shown.map((page) => page.text).join('\n'), buttons: shown.flatMap((p) => p.buttons), ids };
  },
};

const CASES: {
  name: string;
  message: PatrolReportMessage;
  heading: string;
  buttons: string[];
  states: string[];
}[] = [
  { name: 'open and late', message: open, heading: 'CRITICAL · web', buttons: OPEN_BUTTONS, states: [] },
  {
    name: 'acked and snoozed',
    message: acked,
    heading: 'CRITICAL · web',
    buttons: OPEN_BUTTONS.filter((label) => label !== 'Ack'),
    states: ['Acked by Alice', `Snoozed until ${readableUtc(NOW + 3_600_000)}`],
  },
  {
    name: 'resolved',
    message: resolved,
    heading: 'RESOLVED · web',
    buttons: [],
    states: [`Resolved at ${readableUtc(NOW)}, open for 10 min`],
  },
  { name: 'with 30 checks', message: thirty, heading: 'CRITICAL · web', buttons: OPEN_BUTTONS, states: [] },
];

describe.each(Object.keys(PLATFORMS))('a patrol report on %s', (platform) => {
  const render = PLATFORMS[platform]!;
  it.each(CASES)('$name: heading, a line per check, summary, footer and buttons', (example) => {
    const shown = render(example.message);
    const { message } = example;
    expect(shown.text).toContain(example.heading);
    const textLines = shown.text.split('\n');
    for (const check of message.lines) {
      const found = textLines.filter(
        (text) =>
          text.includes(check.checkId) &&
          text.includes(check.detail) &&
          text.includes(`was ${check.previous} since ${readableUtc(check.since)}`),
      );
      expect(found, `${check.checkId} on ${platform}`).toHaveLength(1);
    }
    if (message.summary) expect(shown.text).toContain(message.summary);
    expect(shown.text).toContain(message.runId);
    expect(shown.text).toContain(`schedule in ${message.timezone}`);
    if (message.nextRunAt) expect(shown.text).toContain(`next run ${readableUtc(message.nextRunAt)}`);
    expect(shown.text.includes('late run')).toBe(message.late === true);
    for (const state of example.states) expect(shown.text).toContain(state);
    expect(shown.buttons).toEqual(example.buttons);
    for (const id of shown.ids) {
      expect(id.length).toBeLessThanOrEqual(MAX_BUTTON_ID_CHARS);
      expect(id).toMatch(new RegExp(`^(pack|prun|psnooze):${message.reportId}(:(1h|4h|1d))?$`));
    }
  });
});
