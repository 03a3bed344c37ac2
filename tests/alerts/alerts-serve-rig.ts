// opsbot as `npm start` runs it, with the Alertmanager receiver on and the fake Slack, over a store that outlives
// one process, so a test can restart the bot between notifications.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { openStore } from '../../agent/store/open-store.js';
import { type Serving, serve } from '../../bot/serve.js';
import type { FakeSlackApi } from '../fakes/slack/fake-slack-api.js';

export const ALERTS_TOKEN = 'alerts-test-token-0123456789abcdef0123456789';
export const SLACK_SIGNING_SECRET = 'alerts-signing-secret';

export class AlertsBotDirectory {
  readonly dir = mkdtempSync(join(tmpdir(), 'opsbot-alerts-'));

  constructor(yaml: string) {
    writeFileSync(join(this.dir, 'opsbot.yaml'), yaml);
  }

  get storeUrl(): string {
    return `sqlite://${join(this.dir, 'opsbot.sqlite')}`;
  }

  /** A bot process over this directory's settings and store; stop it, and start another over the same state. */
  serve(env: Record<string, string>): Promise<Serving> {
    return serve({
      env: {
        PORT: '0',
        HOST: '127.0.0.1',
        OPSBOT_CONFIG: join(this.dir, 'opsbot.yaml'),
        OPSBOT_DATA_DIR: join(this.dir, 'data'),
        OPSBOT_STORE_URL: this.storeUrl,
        OPSBOT_PLAYGROUND: 'off',
        OPSBOT_ALERTS_TOKEN: ALERTS_TOKEN,
        LOG_LEVEL: 'silent',
        ...env,
      },
      argv: [],
    });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function receiverUrl(serving: Serving): string {
  return `${serving.url}/alerts/alertmanager`;
}

/** Polls `probe` until it returns a value (not undefined), for at most `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What the bot told the clicker of the button click `triggerId` (Slack's ephemeral reply through response_url). */
export function clickReply(api: FakeSlackApi, triggerId: string): Promise<string> {
  return waitFor(`the reply to ${triggerId}`, () => {
    const found = api.responses.find((response) => response.id === triggerId);
    return found ? String(found.body.text ?? '') : undefined;
  });
}

/** The alert buttons' audit entries in a stopped bot's store, as [who, outcome] in order. */
export async function auditedAlertActions(storeUrl: string): Promise<[string, string | undefined][]> {
  const store = await openStore(storeUrl);
  try {
    return (await new AuditLog(store).list({ limit: 100 }))
      .filter((entry) => entry.kind === 'alert_action')
      .map((entry) => [entry.actor.key, entry.outcome]);
  } finally {
    await store.close();
  }
}
