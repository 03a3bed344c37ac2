// attack: a danger argument hidden behind redaction on the approval card. The card showed
// `{"target":"api token=[REDACTED]"}`, the approver approved, and the command ran with the real text. Such a call
// is refused now, naming the parameter; a parameter declared secret shows as "‹secret, N chars›" instead.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../agent/tool.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import type { ToolProbe } from '../kernel/harness.js';
import { CHANNEL, SlackHarness, USERS } from '../slack/slack-harness.js';

const purgeCache = (probe: ToolProbe) =>
  defineTool({
    name: 'purge_cache',
    description: 'Purge a cache target. Use only when asked to purge one. Cannot be undone.',
    input: z.object({ target: z.string().describe('What to purge') }),
    risk: 'danger',
    describeCall: (input) => `cachectl purge ${String(input.target)}`,
    execute: (_ctx, input) =>
      probe.track('purge_cache', input, async () => ({ ok: true, summary: `purged ${input.target}` })),
  });

const SECRET = 'hunter2-is-not-a-pattern'; // 24 characters, and no redaction shape matches it
const setKey = (probe: ToolProbe) =>
  defineTool({
    name: 'set_api_key',
    description: 'Set the API key a service uses. Use only when asked to rotate a key.',
    input: z.object({
      service: z.enum(['api', 'worker']).describe('Which service'),
      key: z.string().describe('The new key'),
    }),
    risk: 'danger',
    secretParameters: ['key'],
    describeCall: (input) => `keyctl set ${String(input.service)} ${String(input.key)}`,
    execute: (_ctx, input) =>
      probe.track('set_api_key', input, async () => ({
        ok: true,
        summary: `set the key of ${input.service} to ${input.key}`,
      })),
  });

describe('attack: a danger argument hidden behind redaction on the approval card', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('refuses the call, naming the parameter, and posts no card to approve', async () => {
    h = await SlackHarness.start({ mode: 'http', tools: (probe) => [purgeCache(probe)] });
    h.openai.reply(
      toolCalls([{ name: 'purge_cache', arguments: { target: 'api token=--drop-all-tables-now' } }]),
      text('I could not purge it.'),
    );
    const mention = await h.mention(USERS.alice, 'purge the api cache');
    await h.settled();
    expect(h.withButton(mention.ts, 'Approve')).toEqual([]);
    expect(h.probe.count('purge_cache')).toBe(0);
    const toolMessage = JSON.stringify(h.openai.lastRequest?.body);
    expect(toolMessage).toContain('its parameter \\\\\\"target\\\\\\" holds text that looks like a secret');
    expect(toolMessage).toContain('declares it a secret parameter in the settings of purge_cache');
    // The person sees the refusal in the thread, whatever the model says, and the run does not read "Done".
    const thread = h.threadText(mention.ts);
    expect(thread).toContain('purge_cache was refused, and did not run: its parameter "target" holds text');
    expect(thread).toMatch(/Done, with a problem/);
  });

  it('shows a declared secret as ‹secret, 24 chars› by name, runs it with the real value, and masks it everywhere it is shown', async () => {
    h = await SlackHarness.start({ mode: 'http', tools: (probe) => [setKey(probe)] });
    h.openai.reply(
      toolCalls([{ name: 'set_api_key', arguments: { service: 'api', key: SECRET } }]),
      text('Done.'),
    );
    const mention = await h.mention(USERS.alice, 'rotate the api key');
    await h.settled();
    const [card] = h.withButton(mention.ts, 'Approve');
    if (!card) throw new Error(`no approval card:\n${h.threadText(mention.ts)}`);
    const shown = renderSlackMessage(h.api.message(CHANNEL, card.ts)!).text;
    expect(shown).toContain('"key": "‹secret, 24 chars›"');
    expect(shown).toContain('keyctl set api ‹secret, 24 chars›');
    expect(shown).not.toContain(SECRET);

    await h.click(USERS.dave, card, 'Approve');
    await h.settled();
    expect(h.probe.calls).toEqual([{ tool: 'set_api_key', args: { service: 'api', key: SECRET } }]);
    expect(h.threadText(mention.ts)).not.toContain(SECRET);
    // The result the model reads, and what the Store keeps for people to see, are masked too.
    expect(JSON.stringify(h.openai.lastRequest?.body)).toContain('set the key of api to ‹secret, 24 chars›');
    const runId = /run_[0-9a-f]{16}/.exec(shown)?.[0];
    const run = await h.kernel.get(runId!);
    const shownInStore = JSON.stringify(run.events);
    expect(shownInStore).toContain('‹secret, 24 chars›');
    expect(shownInStore).not.toContain(SECRET);
  });

  it('keeps a declared secret masked in the record of a call that was denied', async () => {
    h = await SlackHarness.start({ mode: 'http', tools: (probe) => [setKey(probe)] });
    h.openai.reply(
      toolCalls([{ name: 'set_api_key', arguments: { service: 'api', key: SECRET } }]),
      text('Not done.'),
    );
    const mention = await h.mention(USERS.alice, 'rotate the api key');
    await h.settled();
    const [card] = h.withButton(mention.ts, 'Deny');
    await h.click(USERS.dave, card!, 'Deny');
    await h.settled();
    await h.submitView(USERS.dave, h.api.views.at(-1)!, { reason: { reason: null } });
    await h.settled();
    expect(h.probe.count('set_api_key')).toBe(0);
    const shown = renderSlackMessage(h.api.message(CHANNEL, card!.ts)!).text;
    const run = await h.kernel.get(/run_[0-9a-f]{16}/.exec(shown)![0]);
    expect(run.status).not.toBe('waiting_for_approval');
    const recorded = run.events.find((event) => event.type === 'tool_call');
    expect(recorded).toMatchObject({ args: { service: 'api', key: '‹secret, 24 chars›' } });
    expect(JSON.stringify(run.events)).not.toContain(SECRET);
  });
});
