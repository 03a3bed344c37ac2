// The neutral message view: per-platform limits and splitting, one table detection, inert pings, closed cards.
import { describe, expect, it } from 'vitest';
import type { OutboundMessage } from '../../agent/chat-port.js';
import { decodeButton } from '../../bot/chat/button-codec.js';
import { messageView } from '../../bot/chat/message-view.js';
import type { MessageView, ViewBlock } from '../../bot/chat/message-view-types.js';
import { JOINER, neutralizePings } from '../../bot/chat/neutralize-pings.js';
import { paginate, splitText } from '../../bot/chat/split-text.js';
import { slackWeight, VIEW_LIMITS, type ViewLimits, type ViewPlatform } from '../../bot/chat/view-limits.js';
import { toolDataView, type ViewTable } from '../../bot/chat/view-tables.js';
import { sampleApprovalCard, sampleQuestion } from '../fixtures/outbound-messages.js';

const now = Date.UTC(2026, 0, 1, 12, 0);
const view = (message: OutboundMessage, platform: ViewPlatform = 'slack', at = now): MessageView =>
  messageView(message, { now: at, limits: VIEW_LIMITS[platform] });

const card = sampleApprovalCard;

/** Every string a person would read in a view. */
function strings(shown: MessageView): string[] {
  const ofBlock = (block: ViewBlock): string[] => {
    switch (block.type) {
      case 'text':
        return [block.text, block.label ?? ''];
      case 'code':
        return [block.code];
      case 'fields':
        return block.fields.flatMap((field) => [field.label, field.value]);
      case 'checklist':
        return block.items.flatMap((item) => [item.label, item.why ?? '', item.note ?? '']);
      case 'detail':
        return [
          block.tool,
          block.summary ?? '',
          block.data.raw ?? '',
          ...block.data.fields.flatMap((field) => [field.label, field.text]),
          ...block.data.tables.flatMap((table) => [
            table.title,
            ...table.columns.flatMap((column) => [column.key, column.label]),
            ...table.rows.flat().map(String),
          ]),
        ];
    }
  };
  return [
    shown.summary,
    shown.heading ?? '',
    shown.footer ?? '',
    shown.outcome?.by ?? '',
    shown.outcome?.detail ?? '',
    ...shown.buttons.map((button) => button.label),
    ...shown.blocks.flatMap(ofBlock),
  ];
}

const weigh = (text: string, weight: (character: string) => number = () => 1) =>
  [...text].reduce((total, character) => total + weight(character), 0);

describe('splitting to platform limits', () => {
  const lines = Array.from(
    { length: 200 },
    (_, index) => `line ${String(index).padStart(3, '0')} ${'x'.repeat(40)}`,
  );
  const long = lines.join('\n');

  it.each(['slack', 'discord'] as const)(
    'keeps every %s text block within its limit, losing nothing',
    (platform) => {
      const limits: ViewLimits = VIEW_LIMITS[platform];
      const shown = view({ kind: 'result', runId: 'run_1', ok: true, text: long }, platform);
      const texts = shown.blocks.flatMap((block) => (block.type === 'text' ? [block.text] : []));
      expect(texts.length).toBeGreaterThan(1);
      for (const text of texts) expect(weigh(text, limits.weight)).toBeLessThanOrEqual(limits.textChars);
      expect(texts.join('\n')).toBe(long);
    },
  );

  it('gives the playground the whole text in one block', () => {
    const shown = view({ kind: 'result', runId: 'run_1', ok: true, text: long }, 'playground');
    expect(shown.blocks).toEqual([{ type: 'text', format: 'markdown', text: long }]);
    expect(shown.attachment).toBeUndefined();
  });

  it('counts what escaping costs, so an escaped chunk still fits', () => {
    const chunks = splitText('<&>'.repeat(2_000), { max: 3_000, weight: slackWeight });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(weigh(chunk, slackWeight)).toBeLessThanOrEqual(3_000);
    expect(chunks.join('')).toBe('<&>'.repeat(2_000));
  });

  it('heads a refused call "Refused", not "Failed", on every platform', () => {
    for (const platform of ['slack', 'discord', 'playground'] as const) {
      const refused = view(
        {
          kind: 'result',
          runId: 'run_1',
          ok: false,
          refused: true,
          text: 'restart_app was refused, and did not run',
        },
        platform,
      );
      expect(refused).toMatchObject({ tone: 'error', heading: 'Refused' });
      const failed = view(
        { kind: 'result', runId: 'run_1', ok: false, text: 'restart_app failed' },
        platform,
      );
      expect(failed.heading).toBeUndefined();
    }
  });

  it('attaches output past the threshold whole, behind a preview', () => {
    const text = Array.from({ length: 2_000 }, (_, index) => `log line ${index}`).join('\n');
    const shown = view({ kind: 'result', runId: 'run_1', ok: true, text });
    expect(shown.attachment?.content).toBe(text);
    const preview = shown.blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
    expect(preview).toContain('log line 0');
    expect(preview).toContain('more characters in the attached file');
    expect(preview.length).toBeLessThan(2_000);
  });

  it('groups blocks into pages within both the count and the size limit', () => {
    const sizes = [10, 10, 10, 30, 5, 5, 5, 5];
    const pages = paginate(sizes, { items: 3, size: 35 }, (size) => size);
    expect(pages).toEqual([
      [10, 10, 10],
      [30, 5],
      [5, 5, 5],
    ]);
    expect(paginate([], { items: 3, size: 35 }, () => 1)).toEqual([[]]);
  });
});

describe('tables from tool data', () => {
  const rows = Array.from({ length: 60 }, (_, index) => ({
    mount: `/m${index}`,
    used: `${index} GiB`,
    used_bytes: index * 2 ** 30,
    percent: index,
    note: null,
  }));

  it('finds the same tables everywhere, cut to each platform’s row limit', () => {
    const cut = (platform: ViewPlatform): ViewTable =>
      toolDataView({ disks: rows }, VIEW_LIMITS[platform]).tables[0]!;
    expect(cut('slack').rows).toHaveLength(40);
    expect(cut('slack').omittedRows).toBe(20);
    expect(cut('discord').rows).toHaveLength(25);
    expect(cut('playground').rows).toHaveLength(50);
    const table = cut('playground');
    expect(table.title).toBe('disks');
    // `used_bytes` is for the model's arithmetic when `used` is there; `note` is never filled.
    expect(table.columns).toEqual([
      { key: 'mount', label: 'Mount', numeric: false },
      { key: 'used', label: 'Used', numeric: false },
      { key: 'percent', label: 'Percent', numeric: true },
    ]);
  });

  it('shows plain values as fields, nested data raw only where the platform folds it, and no JSON dump', () => {
    const data = { rows: [{ a: 1 }], host: 'web-1', healthy: true, nested: { deep: { x: 1 } } };
    const slack = toolDataView(data, VIEW_LIMITS.slack);
    expect(slack.tables[0]!.title).toBe('');
    expect(slack.fields).toEqual([
      { key: 'host', label: 'Host', value: 'web-1', text: 'web-1' },
      { key: 'healthy', label: 'Healthy', value: true, text: 'yes', tone: 'good' },
    ]);
    expect(slack.raw).toBeUndefined();
    expect(toolDataView(data, VIEW_LIMITS.playground).raw).toContain('"deep"');
    const result = view({
      kind: 'result',
      runId: 'run_1',
      ok: true,
      text: '/ is 71% full',
      details: [
        { tool: 'disk_usage', summary: '/ is 71% full', data: { disks: [{ mount: '/', used: '71 GiB' }] } },
      ],
    });
    const detail = result.blocks.find((block) => block.type === 'detail');
    // The summary repeats the message text, so only the table is added.
    expect(detail).toMatchObject({ tool: 'disk_usage', data: { tables: [{ rows: [['/', '71 GiB']] }] } });
    expect(detail).not.toHaveProperty('summary');
  });
});

describe('pings', () => {
  const hostile =
    '@everyone @here @channel @Here <!channel> <!here> <!everyone> <!subteam^S0123|oncall> <@U0123ABCD> ' +
    '<@W0123|wes> <@123456789012345678> <@!123456789012345678> <@&123456789012345678>';
  const pings = /(?<!\u2060)@(everyone|here|channel)\b|<[@!](?!\u2060)/gi;

  it('makes every platform’s mention syntax inert, and leaves inert text alone', () => {
    const inert = neutralizePings(hostile);
    expect(inert.match(pings)).toBeNull();
    expect(inert.replaceAll(JOINER, '')).toBe(hostile);
    expect(neutralizePings(inert)).toBe(inert);
    expect(neutralizePings('mail ops@here.example or @hereby')).toBe('mail ops@here.example or @hereby');
  });

  it('neutralizes model and tool text in every part of every kind of message', () => {
    const messages: OutboundMessage[] = [
      { kind: 'text', text: hostile },
      { kind: 'status', runId: 'run_1', text: hostile, tone: 'working' },
      { kind: 'question', runId: 'run_1', question: hostile, choices: [hostile], askedOf: hostile },
      {
        kind: 'question',
        runId: 'run_1',
        question: hostile,
        choices: [],
        askedOf: 'Alice',
        answered: { by: hostile, answer: hostile, at: now },
      },
      {
        ...card,
        requester: hostile,
        tool: hostile,
        argumentsJson: hostile,
        reason: hostile,
        approvers: [hostile],
      },
      { ...card, decision: { outcome: 'denied', by: hostile, at: now, reason: hostile } },
      {
        kind: 'result',
        runId: 'run_1',
        ok: false,
        text: hostile,
        details: [
          {
            tool: hostile,
            summary: `${hostile}!`,
            data: { [hostile]: [{ [hostile]: hostile }], x: hostile },
          },
        ],
      },
    ];
    for (const platform of ['slack', 'discord', 'playground'] as const) {
      for (const message of messages) {
        for (const text of strings(view(message, platform))) expect(text.match(pings), text).toBeNull();
      }
    }
  });
});

describe('cards', () => {
  it('gives an open approval card Approve and Deny buttons that carry only the approval id', () => {
    const shown = view(card);
    expect(shown.heading).toBe('Approval needed: restart_service');
    expect(shown.buttons.map((button) => [button.label, button.style])).toEqual([
      ['Approve', 'primary'],
      ['Deny', 'danger'],
      ['Cancel run', 'default'],
    ]);
    expect(shown.buttons.map((button) => decodeButton(button.id))).toEqual([
      { action: 'approve', approvalId: card.approvalId },
      { action: 'deny', approvalId: card.approvalId },
      { action: 'cancel', runId: card.runId },
    ]);
    expect(shown.expiresAt).toBe(card.expiresAt);
    expect(shown.outcome).toBeUndefined();
    expect(shown.blocks[0]).toMatchObject({
      type: 'fields',
      fields: expect.arrayContaining([
        { label: 'Expires', value: '2026-01-01 12:15 UTC, in 15 min', at: card.expiresAt },
      ]),
    });
  });

  it('shows what will run and its impact on every platform, first after the fields, and leaves them out when absent', () => {
    const told = {
      ...card,
      willRun: 'systemctl restart api.service',
      impact: 'restarts the api; about 20 s of 502s',
    };
    for (const platform of ['slack', 'discord', 'playground'] as const) {
      const shown = view(told, platform);
      expect(shown.blocks[1]).toEqual({
        type: 'code',
        code: 'systemctl restart api.service',
        label: 'Will run',
      });
      expect(shown.blocks[2]).toEqual({
        type: 'text',
        format: 'plain',
        label: 'Impact',
        text: 'restarts the api; about 20 s of 502s',
      });
    }
    const labels = view(card).blocks.flatMap((block) =>
      'label' in block && block.label ? [block.label] : [],
    );
    expect(labels).not.toContain('Will run');
    expect(labels).not.toContain('Impact');
  });

  it('shows an expired card as expired, with no buttons, though nobody recorded the expiry yet', () => {
    const shown = view(card, 'slack', card.expiresAt);
    expect(shown.buttons).toEqual([]);
    expect(shown.expiresAt).toBeUndefined();
    expect(shown.heading).toBe('Expired: restart_service');
    expect(shown.outcome).toEqual({ state: 'expired', at: card.expiresAt, detail: 'nobody approved' });
    // Everything an approver would have weighed is still shown.
    expect(strings(shown).join('\n')).toContain('"service": "api"');
  });

  it('shows a decided card with who decided and no buttons, even before it would have expired', () => {
    const shown = view({ ...card, decision: { outcome: 'approved', by: 'Bob', at: now + 60_000 } });
    expect(shown.buttons).toEqual([]);
    expect(shown.outcome).toEqual({ state: 'approved', by: 'Bob', at: now + 60_000 });
    expect(shown.summary).toBe('Approved: restart_service requested by Alice');
  });

  it('shows choices as answer buttons until the question is answered, then the answer and no buttons', () => {
    const question = sampleQuestion;
    const open = view(question);
    expect(open.buttons.map((button) => button.label)).toEqual(['staging', 'prod', 'Cancel run']);
    expect(open.buttons.map((button) => decodeButton(button.id))).toEqual([
      { action: 'answer', runId: 'run_1', choice: 0 },
      { action: 'answer', runId: 'run_1', choice: 1 },
      { action: 'cancel', runId: 'run_1' },
    ]);
    const answered = view({ ...question, answered: { by: 'Alice', answer: 'prod', at: now } });
    expect(answered.buttons).toEqual([]);
    expect(answered.outcome).toEqual({ state: 'answered', by: 'Alice', at: now, detail: 'prod' });
    expect(answered.blocks).toEqual(open.blocks);
  });

  it('shows a question closed by a cancel or its expiry as such, not as an answer', () => {
    const cancelled = view({
      ...sampleQuestion,
      answered: { by: 'Alice', answer: '(cancelled by Alice)', at: now, closed: 'cancelled' },
    });
    expect(cancelled.buttons).toEqual([]);
    expect(cancelled.outcome).toEqual({ state: 'withdrawn', by: 'Alice', at: now });
    expect(cancelled.summary).toMatch(/^Cancelled by Alice: /);
    const expired = view({
      ...sampleQuestion,
      answered: { by: 'nobody', answer: '(expired unanswered)', at: now, closed: 'expired' },
    });
    expect(expired.outcome).toEqual({ state: 'expired', at: now });
    expect(expired.summary).toMatch(/^Expired unanswered: /);
  });

  it('offers no more choice buttons than the platform shows', () => {
    const choices = Array.from({ length: 60 }, (_, index) => `choice ${index}`);
    const question = {
      kind: 'question' as const,
      runId: 'run_1',
      question: 'Which?',
      choices,
      askedOf: 'Alice',
    };
    expect(view(question, 'discord').buttons).toHaveLength(25);
    expect(view(question, 'slack').buttons).toHaveLength(50);
  });
});
