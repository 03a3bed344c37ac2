// alertmanager_silence and alertmanager_silences against the real Alertmanager 0.25: a silence is a write, so it is
// made only through the approval gate, its card shows the exact matchers, and the listing then shows it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../agent/tool.js';
import { ToolArgumentError } from '../../agent/tool-errors.js';
import { createBuiltInTools } from '../../tools/index.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { type ApprovalHarness, createApprovalHarness } from '../approvals/approval-harness.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { runTask } from '../kernel/harness.js';
import {
  monitoringServersInstalled,
  postAlerts,
  type RunningServer,
  startAlertmanager,
} from '../monitoring-servers.js';
import { callTool, dataOf } from '../tools/helpers/tool-context.js';

let alertmanager: RunningServer;
let tools: Tool[];
let harness: ApprovalHarness | undefined;

const conversation = { platform: 'playground' as const, channelId: 'ops', threadId: 'th1' };
const silenceArgs = {
  matchers: [
    { name: 'alertname', value: 'DiskFull' },
    { name: 'instance', value: 'db-.*', is_regex: true },
  ],
  duration: '1h',
  comment: 'disk swap planned for tonight',
};

function named(name: string): Tool {
  return tools.find((item) => item.name === name)!;
}

async function silencesInAlertmanager(): Promise<
  { id: string; comment: string; status: { state: string } }[]
> {
  return (await fetch(`${alertmanager.url}/api/v2/silences`)).json() as Promise<
    { id: string; comment: string; status: { state: string } }[]
  >;
}

const installed = monitoringServersInstalled();

describe.skipIf(!installed)('the Alertmanager tools against the real Alertmanager', () => {
  beforeAll(async () => {
    alertmanager = await startAlertmanager();
    tools = createBuiltInTools(ToolSettingsSchema.parse({ alertmanager: { url: alertmanager.url } }));
    await postAlerts(alertmanager.url, [
      { labels: { alertname: 'DiskFull', instance: 'db-1' }, annotations: { summary: 'disk 97% full' } },
    ]);
  }, 60_000);

  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  afterAll(async () => alertmanager?.close());

  it('exist only when tools.alertmanager.url is set, and silencing is a write', () => {
    expect(tools.map((item) => item.name).filter((name) => name.startsWith('alertmanager'))).toEqual([
      'alertmanager_silences',
      'alertmanager_silence',
    ]);
    expect(named('alertmanager_silence').risk).toBe('write');
    expect(named('alertmanager_silences').risk).toBe('read');
  });

  it('silences only once approved, with the matchers on the card, and the listing shows the silence', async () => {
    harness = await createApprovalHarness('memory', {}, { tools });
    harness.fake.reply(toolCalls([{ name: 'alertmanager_silence', arguments: silenceArgs }]));
    const run = await runTask(harness.kernel, {
      text: 'silence DiskFull on the db hosts for an hour',
      principal: harness.person('alice'),
      conversation,
    });
    expect(run.status).toBe('waiting_for_approval');
    expect(await silencesInAlertmanager()).toEqual([]);
    const card = harness.chat.ofKind('approval')[0]!;
    expect(card.willRun).toBe(
      'silence alertname="DiskFull", instance=~"db-.*" for 1h: "disk swap planned for tonight"',
    );
    expect(card.impact).toBe('matching alerts stop notifying until the silence ends');

    harness.fake.reply(text('Silenced for an hour.'));
    await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'approve');
    const done = await harness.kernel.settled(run.id);
    expect(done.status).toBe('finished');
    const result = done.events.find((event) => event.type === 'tool_result');
    expect(result?.type === 'tool_result' && result.ok).toBe(true);

    const made = await silencesInAlertmanager();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ comment: 'disk swap planned for tonight', status: { state: 'active' } });
    const alerts = (await (await fetch(`${alertmanager.url}/api/v2/alerts`)).json()) as {
      status: { silencedBy: string[] };
    }[];
    expect(alerts[0]?.status.silencedBy).toEqual([made[0]!.id]);

    const listed = await callTool(named('alertmanager_silences'), {});
    expect(listed.ok).toBe(true);
    expect(dataOf(listed).silences).toEqual([
      {
        id: made[0]!.id,
        state: 'active',
        matchers: ['alertname="DiskFull"', 'instance=~"db-.*"'],
        starts_at: expect.any(String),
        ends_at: expect.any(String),
        created_by: 'opsbot for Alice',
        comment: 'disk swap planned for tonight',
      },
    ]);
    expect(listed.summary).toMatch(
      /^Alertmanager has 1 active silence\(s\); the first: alertname="DiskFull", /,
    );
  });

  it('makes nothing when the approver denies it', async () => {
    const before = (await silencesInAlertmanager()).length;
    harness = await createApprovalHarness('memory', {}, { tools });
    harness.fake.reply(
      toolCalls([{ name: 'alertmanager_silence', arguments: silenceArgs }]),
      text('Not silenced.'),
    );
    const run = await runTask(harness.kernel, {
      text: 'silence DiskFull',
      principal: harness.person('alice'),
      conversation,
    });
    const card = harness.chat.ofKind('approval')[0]!;
    await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'deny');
    await harness.kernel.settled(run.id);
    expect(await silencesInAlertmanager()).toHaveLength(before);
  });

  it('makes a silence asked twice once: the second call names the one that already covers it', async () => {
    const twice = {
      ...silenceArgs,
      comment: 'asked twice',
      matchers: [{ name: 'alertname', value: 'TwiceAsked' }],
    };
    const first = await callTool(named('alertmanager_silence'), twice);
    expect(dataOf(first).already).toBe(false);
    const second = await callTool(named('alertmanager_silence'), { ...twice, duration: '30m' });
    expect(second.ok).toBe(true);
    expect(dataOf(second)).toMatchObject({ already: true, silence_id: dataOf(first).silence_id });
    expect(second.summary).toMatch(
      /^Already silenced: alertname="TwiceAsked" until .*; no second silence was made\.$/,
    );
    const longer = await callTool(named('alertmanager_silence'), { ...twice, duration: '4h' });
    expect(dataOf(longer).already).toBe(false);
    const made = (await silencesInAlertmanager()).filter((silence) => silence.comment === 'asked twice');
    expect(made).toHaveLength(2);
  });

  it('refuses matchers without one exact name="value", before anything is sent', () => {
    const everything = { ...silenceArgs, matchers: [{ name: 'alertname', value: '.+', is_regex: true }] };
    const parsed = named('alertmanager_silence').input.safeParse(everything);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/at least one matcher must be an exact name="value"/);
  });

  it("gives Alertmanager's own words for a matcher it will not take, as an argument to fix", async () => {
    const bad = {
      ...silenceArgs,
      matchers: [
        { name: 'alertname', value: 'DiskFull' },
        { name: 'x', value: '(', is_regex: true },
      ],
    };
    await expect(callTool(named('alertmanager_silence'), bad)).rejects.toSatisfy(
      (error) => error instanceof ToolArgumentError && /^Alertmanager refused it: /.test(error.message),
    );
  });
});

describe('alertmanager_silence matchers', () => {
  const silence = createBuiltInTools(
    ToolSettingsSchema.parse({ alertmanager: { url: 'http://127.0.0.1:9093' } }),
  ).find((item) => item.name === 'alertmanager_silence')!;

  it('take text as Alertmanager writes it, as well as objects, and the card shows them the same', () => {
    const parsed = silence.input.parse({
      matchers: [
        'alertname="DiskFull"',
        'instance=~"db-.*"',
        'env!=staging',
        { name: 'team', value: 'storage' },
      ],
      duration: '4h',
      comment: 'planned work',
    }) as Record<string, unknown>;
    expect(parsed.matchers).toEqual([
      { name: 'alertname', value: 'DiskFull', is_regex: false, is_equal: true },
      { name: 'instance', value: 'db-.*', is_regex: true, is_equal: true },
      { name: 'env', value: 'staging', is_regex: false, is_equal: false },
      { name: 'team', value: 'storage', is_regex: false, is_equal: true },
    ]);
    expect(silence.describeCall?.(parsed)).toBe(
      'silence alertname="DiskFull", instance=~"db-.*", env!="staging", team="storage" for 4h: "planned work"',
    );
  });

  it('refuse text that is not a matcher, and a duration over 7 days', () => {
    const bad = silence.input.safeParse({ matchers: ['DiskFull'], duration: '1h', comment: 'x y z' });
    expect(bad.error?.issues[0]?.message).toMatch(/a matcher such as alertname="DiskFull"/);
    const long = silence.input.safeParse({ matchers: ['alertname=X'], duration: '8d', comment: 'x y z' });
    expect(long.error?.issues[0]?.message).toBe('at most 7d');
  });
});
