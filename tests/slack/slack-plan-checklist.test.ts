// A plan's checklist in Slack: posted in the task's thread as Block Kit when the plan is made, and edited in
// place (chat.update of the same message) as its steps finish.
import { afterEach, describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { planReply } from '../engines/plan-script.js';
import { status, text } from '../fakes/openai-server.js';
import { CHANNEL, SlackHarness, settings, USERS } from './slack-harness.js';

let h: SlackHarness;
afterEach(async () => h?.close());

describe('Slack plan checklist', () => {
  it('posts the checklist once and updates it as the steps finish, with each state as its emoji', async () => {
    h = await SlackHarness.start({
      settings: SettingsSchema.parse({ permissions: settings.permissions, engines: { default: 'plan' } }),
    });
    h.openai.reply(
      planReply([
        { id: 'http', tool: 'check_http', args: { url: 'https://api.example.com' }, why: 'is the api up' },
        { id: 'logs', tool: 'read_logs', args: { service: 'api' }, depends_on: ['http'] },
        { id: 'bad', tool: 'flaky', args: {} },
      ]),
      planReply([{ id: 'again', tool: 'read_logs', args: { service: 'worker' } }]),
      text('The *api* is up; flaky failed.'),
    );
    const mention = await h.mention(USERS.alice, 'is the api up?');
    await h.settled();

    const plan = h.api
      .thread(CHANNEL, mention.ts)
      .find((message) => JSON.stringify(message.blocks).includes('1. check_http'))!;
    expect(plan).toBeDefined();
    // Posted once (all steps under way or waiting), then edited in place.
    expect(
      h.api.callsTo('chat.postMessage').filter((call) => String(call.args.text).includes('Plan')),
    ).toHaveLength(1);
    expect(plan.history.length).toBeGreaterThan(0);
    const first = JSON.stringify(plan.history[0]!.blocks);
    expect(first).toContain(':hourglass_flowing_sand: *1. check_http* — is the api up');
    expect(first).toContain(':white_circle: *2. read_logs*');
    const last = JSON.stringify(plan.blocks);
    expect(last).toContain('Plan, made again after a step failed');
    expect(last).toContain(':white_check_mark: *1. check_http* — is the api up');
    expect(last).toContain('_https://api.example.com answered 200_');
    expect(last).toContain(':x: *3. flaky*');
    expect(last).toContain(':fast_forward: *2. read_logs*');
    expect(last).toContain('_replaced by the new plan_');
    expect(last).toContain(':white_check_mark: *4. read_logs*');
    expect(h.threadText(mention.ts)).toContain('The _api_ is up; flaky failed.');
  });

  it('runs a typed command without the model when it is down, as on react, and says why', async () => {
    h = await SlackHarness.start({
      settings: SettingsSchema.parse({ permissions: settings.permissions, engines: { default: 'plan' } }),
    });
    h.openai.reply(status(503), status(503));
    const mention = await h.mention(USERS.alice, 'check_http url=http://api.internal/health');
    await h.settled();
    expect(h.probe.count('check_http')).toBe(1);
    const shown = h.threadText(mention.ts);
    expect(shown).toContain('http://api.internal/health answered 200');
    expect(shown).toMatch(/is unreachable since .*, so this ran as a typed command, without the model\./);
  });
});
