// Several real opsbot processes (`node bin/start.js`, the bundle as `npm start` runs it) in the gateway and
// worker roles, on a Redis of the test's own, with the fake Slack and a fake model in this process.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fakes/openai-server.js';
import { FAKE_BOT, type FakeSlackApi, startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';
import { eventCallback } from '../fakes/slack/slack-payload-builders.js';
import { postSigned, type SignedPostResult } from '../fakes/slack/slack-signing.js';
import { freePort, shutDownRedisServer, startRedisServer, stopRedisServer } from '../redis-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SIGNING_SECRET = 'scale-signing-secret';
export const CHANNEL = 'C0SCALE';

export interface OpsbotProcess {
  name: string;
  child: ChildProcess;
  dataDir: string;
  /** Everything it printed, stdout and stderr. */
  output(): string;
  /** Runs this process stepped: one trace file per run it worked on. */
  tracedRuns(): string[];
}

/** One signed app_mention as Slack would deliver it, kept so that it can be delivered again. */
export interface SlackDelivery {
  eventId: string;
  /** The message's ts: the thread of a top-level mention. */
  ts: string;
  body: string;
}

export interface MentionOptions {
  user?: string;
  channel?: string;
  threadTs?: string;
}

export interface ScaleRigOptions {
  /**
   * Redis keeps an append-only file (fsync on every write) in the rig's folder, so that stopRedis() and
   * startRedis() lose nothing that was acknowledged.
   */
  persistentRedis?: boolean;
}

export interface ScaleRig {
  dir: string;
  redisUrl: string;
  fake: FakeOpenAIServer;
  slack: FakeSlackApi;
  gatewayUrl: string;
  start(name: string, role: 'gateway' | 'worker' | 'all', extra?: NodeJS.ProcessEnv): Promise<OpsbotProcess>;
  /**
   * `@opsbot <text>` from a user in a channel (or in a thread of it), signed, to the gateway; returns the
   * message's ts, which is the thread of a top-level mention.
   */
  mention(text: string, options?: MentionOptions): Promise<string>;
  /** Builds a mention without sending it. */
  mentionDelivery(
    text: string,
    options?: { user?: string; channel?: string; threadTs?: string },
  ): SlackDelivery;
  /**
   * Sends it, signed now, as a redelivery when `retryNum` is set; a gateway that does not answer within 3 s gets
   * status 0, as Slack gives up on it then.
   */
  deliver(delivery: SlackDelivery, retryNum?: number): Promise<SignedPostResult>;
  /** Stops Redis with SIGTERM (it flushes its file) and resolves once it has exited. */
  stopRedis(): Promise<void>;
  /** Starts Redis again on the same port and data; resolves once it accepts connections. */
  startRedis(): Promise<void>;
  close(): Promise<void>;
}

const SETTINGS = [
  'limits:',
  '  model_retries: 0',
  '  worker_concurrency: 16',
  // A killed worker's runs go to the other one after this; the default (20s) would only slow the tests down.
  '  worker_lock: 2s',
  '',
].join('\n');
const EVERYONE_READS = ['permissions:', '  default_role: viewer', '  tasks_per_minute: 100000', ''].join(
  '\n',
);

/**
 * `settings` is YAML put after the rig's own `limits:` (so it has no `limits:` of its own), in place of the
 * default "everyone may read"; `{dir}` in it becomes the rig's folder.
 */
export async function startScaleRig(
  settings = EVERYONE_READS,
  rigOptions: ScaleRigOptions = {},
): Promise<ScaleRig> {
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-scale-'));
  writeFileSync(join(dir, 'opsbot.yaml'), SETTINGS + settings.replaceAll('{dir}', dir));
  const redisPort = await freePort();
  const redisDir = rigOptions.persistentRedis ? join(dir, 'redis') : undefined;
  if (redisDir) mkdirSync(redisDir);
  let redis = await startRedisServer(redisPort, redisDir);
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const fake = await startFakeOpenAIServer({ record: false });
  const slack = await startFakeSlackApi();
  const gatewayPort = await freePort();
  const processes: OpsbotProcess[] = [];
  let events = 0;

  async function start(name: string, role: 'gateway' | 'worker' | 'all', extra: NodeJS.ProcessEnv = {}) {
    const dataDir = join(dir, name);
    const child = spawn(process.execPath, ['bin/start.js'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        OPSBOT_ROLE: role,
        OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
        OPSBOT_STORE_URL: redisUrl,
        OPSBOT_DATA_DIR: dataDir,
        PORT: role === 'gateway' ? String(gatewayPort) : '0',
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-scale',
        OPENAI_MODEL: 'fake-model',
        SLACK_BOT_TOKEN: 'xoxb-scale-test',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: slack.apiUrl,
        LOG_LEVEL: 'info',
        ...extra,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    const collect = (chunk: Buffer) => {
      printed += chunk.toString('utf8');
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const running: OpsbotProcess = {
      name,
      child,
      dataDir,
      output: () => printed,
      tracedRuns: () => {
        try {
          return readdirSync(join(dataDir, 'traces')).map((file) => file.replace(/\.jsonl$/, ''));
        } catch {
          return [];
        }
      },
    };
    processes.push(running);
    await waitFor(
      () => printed.includes('opsbot is running') || child.exitCode !== null,
      30_000,
      () => printed,
    );
    if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}:\n${printed}`);
    return running;
  }

  function mentionDelivery(text: string, options: MentionOptions = {}): SlackDelivery {
    const { user = 'UALICE', channel = CHANNEL, threadTs } = options;
    events += 1;
    const ts = slack.nextTs();
    const eventId = `EvScale${String(events).padStart(6, '0')}`;
    const event = {
      type: 'app_mention',
      user,
      text: `<@${FAKE_BOT.userId}> ${text}`,
      ts,
      channel,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    };
    return { eventId, ts, body: JSON.stringify(eventCallback(event, eventId, Date.now())) };
  }

  function send(delivery: SlackDelivery, retryNum?: number, signal?: AbortSignal) {
    const headers: Record<string, string> = retryNum
      ? { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': 'http_error' }
      : {};
    return postSigned(`http://127.0.0.1:${gatewayPort}/slack/events`, delivery.body, {
      secret: SIGNING_SECRET,
      headers,
      ...(signal ? { signal } : {}),
    });
  }

  async function deliver(delivery: SlackDelivery, retryNum?: number): Promise<SignedPostResult> {
    try {
      return await send(delivery, retryNum, AbortSignal.timeout(3_000));
    } catch (error) {
      if (error instanceof DOMException && error.name === 'TimeoutError')
        return { status: 0, body: '', ms: 3_000 };
      throw error;
    }
  }

  return {
    dir,
    redisUrl,
    fake,
    slack,
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    start,
    mentionDelivery,
    deliver,
    async mention(text, options = {}) {
      const delivery = mentionDelivery(text, options);
      const answer = await send(delivery);
      if (answer.status !== 200) throw new Error(`the gateway answered ${answer.status} to ${text}`);
      return delivery.ts;
    },
    async stopRedis() {
      await shutDownRedisServer(redis);
    },
    async startRedis() {
      redis = await startRedisServer(redisPort, redisDir);
    },
    async close() {
      for (const running of processes) {
        if (running.child.exitCode === null && running.child.signalCode === null) {
          running.child.kill('SIGKILL');
          await once(running.child, 'exit');
        }
      }
      await fake.close();
      await slack.close();
      await stopRedisServer(redis);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until `done` holds; the timeout only bounds a hung test, the checks themselves are not timed. */
export async function waitFor(
  done: () => boolean,
  timeoutMs: number,
  explain: () => string = () => '',
): Promise<void> {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`gave up waiting after ${timeoutMs} ms\n${explain()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
