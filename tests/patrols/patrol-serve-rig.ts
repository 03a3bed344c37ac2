// The whole bot as `npm start` runs it, with one patrol checking a real local HTTP target whose answers the test
// scripts (200, then 503, …), and helpers to drive it through the fake Slack and to wait without fixed sleeps.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { openStore } from '../../agent/store/open-store.js';
import { type Serving, serve } from '../../bot/serve.js';
import type { FakeMessage, FakeSlackApi } from '../fakes/slack/fake-slack-api.js';
import { blockActions, buttonsOf, slashCommand } from '../fakes/slack/slack-payload-builders.js';
import { FORM_CONTENT_TYPE, formBody, postSigned } from '../fakes/slack/slack-signing.js';

export const PATROL = 'web';
export const SLACK_SIGNING_SECRET = 'patrol-signing-secret';

/** An HTTP service on 127.0.0.1 answering each request with the next scripted status (the last one repeats). */
export interface ScriptedTarget {
  url: string;
  /** How many requests it has answered. */
  hits(): number;
  /** When each request came, in epoch ms. */
  hitTimes(): number[];
  close(): Promise<void>;
}

export async function startScriptedTarget(statuses: number[]): Promise<ScriptedTarget> {
  let served = 0;
  const times: number[] = [];
  const server = createServer((_request, response) => {
    times.push(Date.now());
    const status = statuses[Math.min(served, statuses.length - 1)]!;
    served += 1;
    response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'unavailable');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/health`,
    hits: () => served,
    hitTimes: () => [...times],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Settings with one patrol on `channel` checking `url`. The schedule (midnight on 1 January) never fires during a
 * test: runs are started by people, through chat. `operator` may run, ack and snooze; everyone else is a viewer,
 * who may only run.
 */
export function patrolSettings(options: { channel: string; url: string; identities: string[] }): string {
  return [
    'permissions:',
    '  roles:',
    '    operator: { tools: ["*"], risks: [read], patrols: [run, ack, snooze] }',
    '  identities:',
    ...options.identities.map((identity) => `    '${identity}': { roles: [operator] }`),
    'patrols:',
    `  ${PATROL}:`,
    "    schedule: '0 0 1 1 *'",
    `    channel: '${options.channel}'`,
    '    raise_after: 1',
    '    clear_after: 1',
    '    checks:',
    `      - { id: api, tool: http_check, args: { url: '${options.url}', expected_status: '200' } }`,
    '',
  ].join('\n');
}

export interface ServedBot {
  serving: Serving;
  storeUrl: string;
  /** Stops the bot and removes its directory. */
  stop(): Promise<void>;
}

export async function serveWithSettings(yaml: string, env: Record<string, string>): Promise<ServedBot> {
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-patrol-'));
  writeFileSync(join(dir, 'opsbot.yaml'), yaml);
  const storeUrl = `sqlite://${join(dir, 'opsbot.sqlite')}`;
  const serving = await serve({
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
      OPSBOT_DATA_DIR: join(dir, 'data'),
      OPSBOT_STORE_URL: storeUrl,
      OPSBOT_PLAYGROUND: 'off',
      LOG_LEVEL: 'silent',
      ...env,
    },
    argv: [],
  });
  return {
    serving,
    storeUrl,
    async stop() {
      await serving.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The audit log's patrol actions, read from the stopped bot's store. */
export async function patrolAudit(storeUrl: string): Promise<{ actor: string; outcome: string }[]> {
  const store = await openStore(storeUrl);
  try {
    const entries = await new AuditLog(store).list({ limit: 100 });
    return entries
      .filter((entry) => entry.kind === 'patrol_action')
      .map((entry) => ({ actor: entry.actor.key, outcome: entry.outcome ?? '' }));
  } finally {
    await store.close();
  }
}

/** Polls `probe` until it returns a value (not undefined), for at most `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Slack's slash command over HTTP, signed; the reply comes to the response_url (FakeSlackApi.responses). */
export class SlackCommands {
  private triggers = 0;

  constructor(
    private readonly api: FakeSlackApi,
    private readonly eventsUrl: string,
    private readonly channel: string,
  ) {}

  async send(user: string, text: string): Promise<string> {
    const triggerId = `patrol-trigger-${++this.triggers}`;
    const fields = slashCommand({
      command: '/ops',
      user,
      text,
      channel: this.channel,
      channelName: 'ops',
      triggerId,
      responseUrl: this.api.responseUrl(triggerId),
    });
    const response = await postSigned(this.eventsUrl, formBody(fields), {
      secret: SLACK_SIGNING_SECRET,
      contentType: FORM_CONTENT_TYPE,
    });
    if (response.status !== 200) throw new Error(`slash command answered ${response.status}`);
    return waitFor(`the reply to /ops ${text}`, () => this.reply(triggerId));
  }

  /**
   * `/ops patrol run <name>` until it starts: a refusal because a run is still going means the last one has not
   * finished, so this also waits for that one, and no run overlaps the next.
   */
  async runPatrol(user: string, name = PATROL): Promise<void> {
    await waitFor(`patrol ${name} to start`, async () => {
      const reply = await this.send(user, `patrol run ${name}`);
      if (reply.startsWith('Running patrol')) return true;
      if (!reply.includes('already running')) throw new Error(`patrol run refused: ${reply}`);
      return undefined;
    });
  }

  private reply(triggerId: string): string | undefined {
    const fromUrl = this.api.responses.find((response) => response.id === triggerId);
    return fromUrl ? String(fromUrl.body.text ?? '') : undefined;
  }
}

/** A click on one of a message's buttons, by its label, signed as Slack sends it; the answer goes to `triggerId`. */
export async function clickButton(
  api: FakeSlackApi,
  eventsUrl: string,
  user: string,
  message: FakeMessage,
  label: string,
  triggerId: string,
  secret = SLACK_SIGNING_SECRET,
): Promise<void> {
  const button = buttonsOf(message).find((candidate) => candidate.text.text === label);
  if (!button) throw new Error(`no button "${label}" on the report`);
  const payload = blockActions({
    user,
    message,
    button,
    channelName: 'ops',
    triggerId,
    actionTs: `${Math.floor(Date.now() / 1000)}.${triggerId.length}${Date.now() % 1000}`,
    responseUrl: api.responseUrl(triggerId),
  });
  const response = await postSigned(eventsUrl, formBody({ payload: JSON.stringify(payload) }), {
    secret,
    contentType: FORM_CONTENT_TYPE,
  });
  if (response.status !== 200) throw new Error(`the click answered ${response.status}`);
}
