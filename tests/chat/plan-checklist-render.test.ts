// A plan's checklist as each surface shows it: the neutral view, Discord's embeds, the playground's page and the
// terminal, every state marked and the model's and tools' text inert.
import { describe, expect, it } from 'vitest';
import type { PlanChecklistMessage } from '../../agent/chat-port.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { messageView } from '../../bot/chat/message-view.js';
import { VIEW_LIMITS } from '../../bot/chat/view-limits.js';
import { formatPlan } from '../../bot/cli/terminal-output.js';
import { renderDiscordOutbound } from '../../bot/discord/discord-render.js';
import { PlaygroundChatPort } from '../../bot/playground/playground-chat-port.js';
import { PlaygroundStore } from '../../bot/playground/playground-store.js';
import { inspectRendered } from '../playground/rendered-message.js';

const NOON = Date.UTC(2026, 0, 1, 12, 0);

const checklist: PlanChecklistMessage = {
  kind: 'plan',
  runId: 'run_1',
  round: 1,
  steps: [
    { number: 1, tool: 'check_http', why: 'is the api up @everyone', state: 'ok', summary: 'answered 200' },
    { number: 2, tool: 'read_logs', state: 'failed', summary: 'connection reset <!here>' },
    { number: 3, tool: 'restart_service', state: 'skipped', summary: 'step 2 (read_logs) failed' },
    { number: 4, tool: 'write_note', state: 'running', summary: 'waiting for approval' },
    { number: 5, tool: 'disk_usage', state: 'waiting' },
    { number: 6, tool: 'restart_service', state: 'refused', summary: 'denied by Bob' },
  ],
};

describe('the plan checklist on each surface', () => {
  it('is a neutral view with a heading that counts the steps ended, in the warning tone after a failure', () => {
    const view = messageView(checklist, { now: NOON, limits: VIEW_LIMITS.slack });
    expect(view).toMatchObject({
      kind: 'plan',
      tone: 'warning',
      heading: 'Plan (4 of 6 steps ended)',
    });
    // The run's status message carries its id; the checklist does not repeat it.
    expect(view.footer).toBeUndefined();
    expect(view.blocks).toHaveLength(1);
    const [block] = view.blocks;
    expect(block?.type === 'checklist' && block.items.map((item) => `${item.state} ${item.label}`)).toEqual([
      'ok 1. check_http',
      'failed 2. read_logs',
      'skipped 3. restart_service',
      'running 4. write_note',
      'waiting 5. disk_usage',
      'refused 6. restart_service',
    ]);
    expect(JSON.stringify(view)).not.toContain('@everyone');
    const done = messageView(
      { ...checklist, steps: checklist.steps.slice(0, 1) },
      { now: NOON, limits: VIEW_LIMITS.slack },
    );
    expect(done.tone).toBe('success');
  });

  it('renders in Discord as an embed, a line per step with its icon, and no pings', () => {
    const { messages } = renderDiscordOutbound(checklist, { now: NOON });
    expect(messages).toHaveLength(1);
    const description = messages[0]!.embeds.map((embed) => embed.description ?? '').join('\n');
    expect(description).toContain('✅ **1. check\\_http** — is the api up');
    expect(description).toContain('❌ **2. read\\_logs**\n> connection reset');
    expect(description).toContain('⏭️ **3. restart\\_service**');
    expect(description).toContain('⛔ **6. restart\\_service**');
    expect(messages[0]!.allowedMentions).toEqual({ parse: [] });
    expect(description).not.toContain('@everyone');
  });

  it('keeps a long plan within Discord’s embed limits', () => {
    const long: PlanChecklistMessage = {
      ...checklist,
      steps: Array.from({ length: 20 }, (_, index) => ({
        number: index + 1,
        tool: 'read_logs',
        why: 'w'.repeat(400),
        state: 'ok' as const,
        summary: 's'.repeat(400),
      })),
    };
    const { messages } = renderDiscordOutbound(long, { now: NOON });
    for (const message of messages)
      for (const embed of message.embeds) expect(embed.description?.length ?? 0).toBeLessThanOrEqual(4096);
    expect(JSON.stringify(messages)).toContain('20. read\\\\_logs');
  });

  it('renders in the playground as a list, each step with its state in words', async () => {
    const playground = new PlaygroundStore(new MemoryStore());
    await playground.ensureChannel('ops');
    const port = new PlaygroundChatPort(playground, 'opsbot');
    const ref = await port.post({ platform: 'playground', channelId: 'ops' }, checklist);
    const shown = inspectRendered((await playground.message(ref.messageId))!, [], NOON);
    expect(shown.text).toContain('Plan (4 of 6 steps ended)');
    expect(shown.text).toMatch(/done\s*1\. check_http\s*is the api up/);
    expect(shown.text).toMatch(/failed\s*2\. read_logs\s*connection reset/);
    expect(shown.text).toMatch(/refused\s*6\. restart_service\s*denied by Bob/);
    expect(shown.pings).toEqual([]);
    // Updated in place: the same message shows the new states.
    await port.update(ref, {
      ...checklist,
      steps: checklist.steps.map((step) => ({ ...step, state: 'ok' as const })),
    });
    expect(inspectRendered((await playground.message(ref.messageId))!, [], NOON).text).toContain(
      'Plan (6 of 6 steps ended)',
    );
  });

  it('prints in the terminal as a heading and a line per step', () => {
    const printed = formatPlan(checklist).replace(/\u001b\[[0-9;]*m/g, '');
    expect(printed.split('\n')).toEqual([
      'Plan (6 steps):',
      '  ✅ 1. check_http done: answered 200 — is the api up @everyone',
      '  ❌ 2. read_logs failed: connection reset <!here>',
      '  ⏭️ 3. restart_service skipped: step 2 (read_logs) failed',
      '  ⏳ 4. write_note running: waiting for approval',
      '  ⬜ 5. disk_usage waiting',
      '  ⛔ 6. restart_service refused: denied by Bob',
    ]);
  });
});
