// Issue 25, defect 5: with the model down, `@opsbot <command>` still runs on the command engine and says so; free
// text is told the model is unreachable, since when and why, and which commands still work.
import { afterEach, describe, expect, it } from 'vitest';
import { status } from '../fakes/openai-server.js';
import { SlackHarness, USERS } from './slack-harness.js';

describe('Slack while the model is down', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('runs a typed command without the model, and says why', async () => {
    h = await SlackHarness.start();
    h.openai.reply(status(503), status(503));
    const mention = await h.mention(USERS.alice, 'check_http url=http://api.internal/health');
    await h.settled();

    expect(h.probe.count('check_http')).toBe(1);
    const shown = h.threadText(mention.ts);
    expect(shown).toContain('http://api.internal/health answered 200');
    expect(shown).toMatch(
      /Note: the model "fake-model" at http:\/\/127\.0\.0\.1:\d+\/v1 is unreachable since \d{4}-\d\d-\d\d \d\d:\d\d UTC \(503 Service Unavailable\), so this ran as a typed command, without the model\./,
    );
    expect(shown).toMatch(/Done/);

    // The next command does not wait for the model at all: its outage is known.
    const asked = h.openai.requests.length;
    const again = await h.mention(USERS.alice, 'read_logs service=api');
    await h.settled();
    expect(h.openai.requests.length).toBe(asked);
    expect(h.threadText(again.ts)).toContain('3 lines from api');
    expect(h.threadText(again.ts)).toMatch(/so this ran as a typed command/);
  });

  it('tells free text that the model is unreachable, and which commands still work', async () => {
    h = await SlackHarness.start();
    h.openai.reply(status(503));
    const mention = await h.mention(USERS.alice, 'why is the api slow?');
    await h.settled();

    const shown = h.threadText(mention.ts);
    expect(shown).toMatch(
      /The model "fake-model" at \S+ is unreachable since \d{4}-\d\d-\d\d \d\d:\d\d UTC \(503 Service Unavailable\)\./,
    );
    expect(shown).toMatch(/Typed commands still work without the model: .*check_http.*read_logs/);
    expect(h.probe.count('check_http')).toBe(0);
  });
});
