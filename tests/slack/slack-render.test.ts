// Rendering to Block Kit: escaping, neutralized pings, Markdown to mrkdwn, Slack's size limits, tables, files.

import type { types } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { splitText } from '../../bot/chat/split-text.js';
import { VIEW_LIMITS } from '../../bot/chat/view-limits.js';
import { monospaceTable, tableOf } from '../../bot/chat/view-tables.js';
import { SLACK_LIMITS } from '../../bot/slack/slack-limits.js';
import { markdownToMrkdwn, safeMrkdwn } from '../../bot/slack/slack-mrkdwn.js';
import { renderOutbound } from '../../bot/slack/slack-render.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { reviewedApprovalCard, sampleApprovalCard } from '../fixtures/outbound-messages.js';

const now = Date.UTC(2026, 0, 1, 12, 0);

function sectionTexts(blocks: types.KnownBlock[]): string[] {
  return blocks.flatMap((block) => (block.type === 'section' && block.text ? [block.text.text] : []));
}

describe('mrkdwn', () => {
  it('escapes the three control characters, in prose and in code', () => {
    expect(markdownToMrkdwn('a < b && c > d')).toBe('a &lt; b &amp;&amp; c &gt; d');
    expect(markdownToMrkdwn('`x<y>`')).toBe('`x&lt;y&gt;`');
  });

  it('neutralizes every kind of ping from model and tool text', () => {
    const hostile =
      '<!channel> <!here> <!everyone> <@U0123ABCD> <@W0123|wes> <!subteam^S0123|oncall> @everyone @here @channel ' +
      '`<!here> @here` ```\n<!channel>\n```';
    const shown = renderSlackMessage({ text: '', blocks: [section(markdownToMrkdwn(hostile))] });
    expect(shown.pings).toEqual([]);
    expect(shown.text).toContain('<!channel>');
    expect(shown.text).toContain('everyone');
    expect(markdownToMrkdwn('mail ops@here.example')).toContain('ops@');
  });

  it('turns Markdown emphasis, links, headings and lists into mrkdwn', () => {
    expect(markdownToMrkdwn('**bold** and *italic* and ~~gone~~')).toBe('*bold* and _italic_ and ~gone~');
    expect(markdownToMrkdwn('see [the docs](https://example.com/a?b=1&c=2)')).toBe(
      'see <https://example.com/a?b=1&amp;c=2|the docs>',
    );
    expect(markdownToMrkdwn('## Disk\n- / is full\n* /var is fine')).toBe(
      '*Disk*\n• / is full\n• /var is fine',
    );
    expect(markdownToMrkdwn('[click](javascript:alert(1))')).not.toContain('<javascript');
    expect(markdownToMrkdwn('```bash\nls **not bold**\n```')).toBe('```\nls **not bold**\n```');
  });

  it('keeps our own text as written, only escaped', () => {
    expect(safeMrkdwn('*opsbot* runs `/ops <task>` @here')).toBe(
      '*opsbot* runs `/ops &lt;task&gt;` @\u2060here',
    );
  });
});

describe('Slack size limits', () => {
  it('splits 6,000 characters into sections of at most 3,000, losing nothing', () => {
    const lines = Array.from(
      { length: 120 },
      (_, index) => `line ${String(index).padStart(3, '0')} ${'x'.repeat(45)}`,
    );
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThanOrEqual(6_000);
    const [message] = renderOutbound({ kind: 'result', runId: 'run_1', ok: true, text }, { now }).messages;
    const sections = sectionTexts(message!.blocks);
    expect(sections.length).toBeGreaterThanOrEqual(3);
    for (const part of sections) expect(part.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    expect(message!.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocksPerMessage);
    expect(sections.join('\n')).toBe(text);
  });

  it('closes and reopens a code block cut between two sections', () => {
    const code = `\`\`\`\n${Array.from({ length: 200 }, (_, index) => `row ${index} ${'y'.repeat(30)}`).join('\n')}\n\`\`\``;
    const chunks = splitText(code, { max: SLACK_LIMITS.sectionText });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(3_000);
      expect(chunk.startsWith('```')).toBe(true);
      expect(chunk.endsWith('```')).toBe(true);
    }
  });

  it('never cuts an escaped character in half', () => {
    const [message] = renderOutbound(
      { kind: 'result', runId: 'run_1', ok: true, text: '&'.repeat(1_000) },
      { now },
    ).messages;
    const chunks = sectionTexts(message!.blocks);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk).toMatch(/^(&amp;)+$/);
      expect(chunk.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    }
  });

  it('spreads more than 50 blocks over several messages', () => {
    const details = Array.from({ length: 30 }, (_, index) => ({
      tool: `tool_${index}`,
      summary: `result ${index}`,
      data: {
        rows: [
          { name: `r${index}`, value: index },
          { name: 'other', value: 0 },
        ],
      },
    }));
    const { messages } = renderOutbound(
      { kind: 'result', runId: 'run_1', ok: true, text: 'many', details },
      { now },
    );
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) expect(message.blocks.length).toBeLessThanOrEqual(50);
    const all = messages
      .map(renderSlackMessage)
      .map((shown) => shown.text)
      .join('\n');
    expect(all).toContain('tool_29');
  });

  it('moves very long output to a file snippet with a short preview', () => {
    const text = Array.from({ length: 2_000 }, (_, index) => `log line ${index}`).join('\n');
    const rendered = renderOutbound({ kind: 'result', runId: 'run_1', ok: true, text }, { now });
    expect(rendered.file?.content).toBe(text);
    const preview = renderSlackMessage(rendered.messages[0]!).text;
    expect(preview).toContain('log line 0');
    expect(preview).toContain('more characters in the attached file');
    expect(preview.length).toBeLessThan(2_000);
  });
});

describe('Slack tables and cards', () => {
  it('renders rows as aligned columns, numbers right-aligned', () => {
    const table = monospaceTable(
      tableOf(
        '',
        [
          { mount: '/', used: '71 GiB', percent: 71 },
          { mount: '/var/lib/docker', used: '3 GiB', percent: 5 },
        ],
        VIEW_LIMITS.slack,
      ),
    );
    expect(table.split('\n')).toEqual([
      '```',
      'mount            used    percent',
      '---------------  ------  -------',
      '/                71 GiB       71',
      '/var/lib/docker  3 GiB         5',
      '```',
    ]);
  });

  it('shows a single row as fields', () => {
    const [message] = renderOutbound(
      {
        kind: 'result',
        runId: 'run_1',
        ok: true,
        text: 'ok',
        details: [{ tool: 'disk_usage', summary: 'fine', data: [{ mount: '/', used: '1 GiB' }] }],
      },
      { now },
    ).messages;
    expect(JSON.stringify(message!.blocks)).toContain('"fields"');
    expect(renderSlackMessage(message!).text).toContain('1 GiB');
  });

  it('labels result facts for people, with units on their values', () => {
    const [message] = renderOutbound(
      {
        kind: 'result',
        runId: 'run_1',
        ok: true,
        text: 'restarted api',
        details: [
          {
            tool: 'restart_service',
            summary: 'exited 0',
            data: { exit_code: 0, timed_out: false, duration_ms: 12 },
          },
        ],
      },
      { now },
    ).messages;
    const text = renderSlackMessage(message!).text;
    for (const part of ['Exit code', 'Timed out', 'no', 'Duration', '12 ms']) expect(text).toContain(part);
    expect(text).not.toMatch(/timed_out|duration_ms/);
  });

  it("shows an approval card's command line as code and its impact", () => {
    const [message] = renderOutbound(
      { ...sampleApprovalCard, willRun: 'systemctl restart api.service', impact: 'about 20 s of 502s' },
      { now },
    ).messages;
    const shown = renderSlackMessage(message!).text;
    expect(shown).toContain('*Will run*\n```\nsystemctl restart api.service\n```');
    expect(shown).toMatch(/\*Impact\*\n.*about 20 s of 502s/);
  });

  it("shows the reviewer's verdict on an approval card, a contradicted one marked as a warning", () => {
    const shown = (card: typeof sampleApprovalCard) =>
      renderSlackMessage(renderOutbound(card, { now }).messages[0]!);
    const supported = shown(reviewedApprovalCard('supported'));
    expect(supported.text).toMatch(
      /\*Reviewer\*\n.*supported: the health check failed 3 times; the log shows OOM kills/,
    );
    expect(supported.text).not.toContain('⚠️');
    const contradicted = shown(reviewedApprovalCard('contradicted'));
    expect(contradicted.text).toContain('⚠️ Reviewer (advice, not an approval)');
    expect(contradicted.text).toContain('⚠️ contradicted: the health check failed 3 times');
    // Advice only: the approver keeps both buttons.
    expect(contradicted.buttons).toEqual(['Approve', 'Deny', 'Cancel run']);
    const unavailable = shown({
      ...sampleApprovalCard,
      review: { kind: 'unavailable', why: 'no answer within 10 s' },
    });
    expect(unavailable.text).toMatch(/\*Reviewer\*\n.*unavailable \(no answer within 10 s\)/);
    expect(shown(sampleApprovalCard).text).not.toContain('Reviewer');
  });

  it('gives each status tone its emoji', () => {
    const shown = (tone: 'working' | 'success' | 'error') =>
      renderOutbound({ kind: 'status', runId: 'run_1', text: 'x', tone }, { now }).messages[0]!.text;
    expect(shown('working')).toContain(':hourglass_flowing_sand:');
    expect(shown('success')).toContain(':white_check_mark:');
    expect(shown('error')).toContain(':x:');
  });

  it('gives each choice button a unique action id and an opaque value', () => {
    const [message] = renderOutbound(
      {
        kind: 'question',
        runId: 'run_1',
        question: 'Which?',
        choices: ['a', 'b', '@here'],
        askedOf: 'Alice',
      },
      { now },
    ).messages;
    const actions = message!.blocks.find((block) => block.type === 'actions') as types.ActionsBlock;
    const buttons = actions.elements as types.Button[];
    expect(buttons.map((button) => button.action_id)).toEqual([
      'opsbot_answer_0',
      'opsbot_answer_1',
      'opsbot_answer_2',
    ]);
    expect(buttons.map((button) => button.value)).toEqual([
      'answer:run_1:0',
      'answer:run_1:1',
      'answer:run_1:2',
    ]);
    expect(renderSlackMessage(message!).pings).toEqual([]);
  });
});

function section(text: string): types.KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}
