// The load side of the scale bench: the fake Slack Web API (where the bot posts), and signed Slack events sent to
// the gateway, each timed from its send to the moment its answer reaches the fake Slack.
import { FAKE_BOT, type FakeSlackApi, startFakeSlackApi } from '../../tests/fakes/slack/fake-slack-api.js';
import { eventCallback } from '../../tests/fakes/slack/slack-payload-builders.js';
import { postSigned } from '../../tests/fakes/slack/slack-signing.js';
import { SCALE_ANSWER } from './scale-model.js';

export const SIGNING_SECRET = 'bench-scale-signing-secret';
/** The people who send the tasks. */
const USERS = 50;

export interface BatchResult {
  runs: number;
  wallMs: number;
  /** Event sent to answer seen, ms, for the runs answered. */
  latenciesMs: number[];
  /** Events the gateway did not ack with 200, and runs with no answer by the deadline. */
  errors: { notAcked: number; unanswered: number; answeredTwice: number };
}

export class SlackLoad {
  private readonly sentAt = new Map<string, number>();
  private readonly answeredAt = new Map<string, number>();
  private readonly calls: Record<string, number> = {};
  private answeredTwice = 0;
  private waiters: Array<() => void> = [];
  private events = 0;

  private constructor(readonly slack: FakeSlackApi) {
    // Every Web API call is recorded before it is answered: the moment a post or edit carries a thread's final
    // answer is when the user would see it.
    const calls = slack.calls;
    const record = calls.push.bind(calls);
    calls.push = (...items) => {
      for (const call of items) this.observe(call.method, call.args);
      return record(...items);
    };
  }

  static async start(): Promise<SlackLoad> {
    return new SlackLoad(await startFakeSlackApi());
  }

  get apiUrl(): string {
    return this.slack.apiUrl;
  }

  /**
   * Sends `runs` tasks to the gateway, at most `inFlight` unanswered at once, over `channels` channels, and
   * waits for every answer (or `deadlineMs` after the last send).
   */
  async batch(options: {
    gatewayUrl: string;
    runs: number;
    inFlight: number;
    channels: number;
    deadlineMs: number;
  }): Promise<BatchResult> {
    const started = performance.now();
    const threads: string[] = [];
    let notAcked = 0;
    const twiceBefore = this.answeredTwice;
    const pending = () => threads.filter((ts) => !this.answeredAt.has(ts)).length;
    for (let task = 0; task < options.runs; task++) {
      let waitedSince = performance.now();
      let answeredBefore = this.countAnswered(threads);
      while (threads.length - answeredBefore >= options.inFlight) {
        await Promise.race([this.nextAnswer(), new Promise((resolve) => setTimeout(resolve, 1_000))]);
        const answered = this.countAnswered(threads);
        if (answered > answeredBefore) waitedSince = performance.now();
        else if (performance.now() - waitedSince > options.deadlineMs)
          throw new Error(`no answer for ${options.deadlineMs} ms with ${options.inFlight} tasks in flight`);
        answeredBefore = answered;
      }
      this.events += 1;
      const ts = this.slack.nextTs();
      const channel = `CBENCH${this.events % options.channels}`;
      const user = `UBENCH${this.events % USERS}`;
      // Members and channels of the workspace, as in a real one: the bot's name lookups succeed and are cached.
      if (!this.slack.channels.has(channel)) this.slack.channels.set(channel, channel.toLowerCase());
      if (!this.slack.users.has(user)) this.slack.users.set(user, { id: user, name: user.toLowerCase() });
      const body = JSON.stringify(
        eventCallback(
          {
            type: 'app_mention',
            user,
            text: `<@${FAKE_BOT.userId}> check the machine, task ${this.events}`,
            ts,
            channel,
          },
          `EvBench${String(this.events).padStart(8, '0')}`,
          Date.now(),
        ),
      );
      threads.push(`${channel}/${ts}`);
      this.sentAt.set(`${channel}/${ts}`, performance.now());
      const delivery = await postSigned(`${options.gatewayUrl}/slack/events`, body, {
        secret: SIGNING_SECRET,
      }).catch(() => ({ status: 0 }));
      if (delivery.status !== 200) {
        notAcked += 1;
        this.answeredAt.set(`${channel}/${ts}`, Number.NaN);
      }
    }
    const deadline = performance.now() + options.deadlineMs;
    while (pending() > 0 && performance.now() < deadline) {
      await Promise.race([this.nextAnswer(), new Promise((resolve) => setTimeout(resolve, 1_000))]);
    }
    const wallMs = performance.now() - started;
    const latenciesMs = threads
      .map((key) => (this.answeredAt.get(key) ?? Number.NaN) - this.sentAt.get(key)!)
      .filter((ms) => Number.isFinite(ms));
    return {
      runs: options.runs,
      wallMs,
      latenciesMs,
      errors: {
        notAcked,
        unanswered: threads.length - latenciesMs.length - notAcked,
        answeredTwice: this.answeredTwice - twiceBefore,
      },
    };
  }

  async close(): Promise<void> {
    await this.slack.close();
  }

  private countAnswered(threads: readonly string[]): number {
    let answered = 0;
    for (const key of threads) if (this.answeredAt.has(key)) answered += 1;
    return answered;
  }

  private nextAnswer(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Web API calls the bot made so far, by method. */
  callsByMethod(): Record<string, number> {
    return { ...this.calls };
  }

  private observe(method: string, args: Record<string, unknown>): void {
    this.calls[method] = (this.calls[method] ?? 0) + 1;
    if (method !== 'chat.postMessage' && method !== 'chat.update') return;
    if (typeof args.text !== 'string' || !args.text.includes(SCALE_ANSWER)) return;
    const channel = String(args.channel);
    let thread = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
    if (method === 'chat.update') {
      const message = this.slack.messages.find((m) => m.channel === channel && m.ts === args.ts);
      thread = message?.thread_ts ?? message?.ts;
    }
    const key = `${channel}/${thread}`;
    if (!this.sentAt.has(key)) return;
    if (this.answeredAt.has(key)) {
      // An edit of the answer is not a second answer; a second post is.
      if (method === 'chat.postMessage') this.answeredTwice += 1;
      return;
    }
    this.answeredAt.set(key, performance.now());
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
