// The event intake: the ack never waits for the work, retries are dropped through the Store, bad events are told.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import type { Conversation } from '../../agent/conversation.js';
import { ErrorCode, SystemError } from '../../agent/errors.js';
import { silentLogger } from '../../agent/logger.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import type { ChatEvent, RouterReply } from '../../bot/chat/chat-event.js';
import {
  EventIntake,
  type IncomingDelivery,
  SOMETHING_WENT_WRONG,
  STORE_UNREACHABLE_REPLY,
} from '../../bot/chat/event-intake.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { Router } from '../../bot/router/router.js';
import { type ApprovalHarness, createApprovalHarness, permissions } from '../approvals/approval-harness.js';
import { text } from '../fakes/openai-server.js';

const conversation: Conversation = { platform: 'slack', channelId: 'C1', threadId: '1.0' };
const alice = {
  platform: 'slack' as const,
  userId: 'U1',
  displayName: 'Alice',
  roles: ['operator'],
  groups: [],
};

function mention(eventId: string, platform: Conversation['platform'] = 'slack'): ChatEvent {
  return {
    kind: 'message',
    eventId,
    principal: { ...alice, platform },
    conversation: { ...conversation, platform },
    text: 'check the disk',
    mentioned: true,
    direct: false,
  };
}

/** A promise the test settles by hand, so nothing in these tests waits on a timer. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** A handler that records events and answers each with the reply the test gives, when the test says so. */
class ManualHandler {
  readonly events: ChatEvent[] = [];
  private readonly waiting: ((reply: RouterReply) => void)[] = [];

  handle(event: ChatEvent): Promise<RouterReply> {
    this.events.push(event);
    const { promise, resolve } = deferred<RouterReply>();
    this.waiting.push(resolve);
    return promise;
  }

  finish(reply: RouterReply = {}): void {
    const next = this.waiting.shift();
    if (!next) throw new Error('no event is being handled');
    next(reply);
  }

  get handling(): number {
    return this.waiting.length;
  }
}

/** Lets queued microtasks and promise callbacks run, without a timer. */
async function drain(rounds = 20): Promise<void> {
  for (let round = 0; round < rounds; round++) await Promise.resolve();
}

function delivery(
  event: unknown,
  log: string[],
  overrides: Partial<IncomingDelivery> = {},
): IncomingDelivery {
  return {
    name: 'test',
    ack: async () => {
      log.push('ack');
    },
    build: async () => event,
    reply: async (reply) => {
      log.push(`reply: ${reply}`);
    },
    ...overrides,
  };
}

describe('event intake', () => {
  it('acks and returns before the handler has finished, then delivers its private reply', async () => {
    const handler = new ManualHandler();
    const intake = new EventIntake({ store: new MemoryStore(), handler, logger: silentLogger });
    const log: string[] = [];

    await intake.receive(delivery(mention('Ev1'), log));
    expect(log).toEqual(['ack']);
    await drain();
    // The handler is still working: the platform had its ack all the same.
    expect(handler.handling).toBe(1);
    expect(intake.pending).toBe(1);

    handler.finish({ ephemeral: 'only for you' });
    await intake.idle();
    expect(log).toEqual(['ack', 'reply: only for you']);
    expect(intake.pending).toBe(0);
  });

  it('acks before building the event, so a slow identity lookup does not hold the platform either', async () => {
    const handler = new ManualHandler();
    const intake = new EventIntake({ store: new MemoryStore(), handler, logger: silentLogger });
    const lookup = deferred<ChatEvent>();
    const log: string[] = [];
    await intake.receive(delivery(undefined, log, { build: () => lookup.promise }));
    expect(log).toEqual(['ack']);
    lookup.resolve(mention('Ev1'));
    await drain();
    handler.finish();
    await intake.idle();
    expect(handler.events).toHaveLength(1);
  });

  it('hands a retried delivery to the handler once, within one process and across replicas', async () => {
    const store = new MemoryStore();
    const handler = new ManualHandler();
    const first = new EventIntake({ store, handler, logger: silentLogger });
    const second = new EventIntake({ store, handler, logger: silentLogger });
    const log: string[] = [];
    await first.receive(delivery(mention('Ev1'), log));
    await first.receive(delivery(mention('Ev1'), log));
    await second.receive(delivery(mention('Ev1'), log));
    // The same event id on another platform is another event.
    await second.receive(delivery(mention('Ev1', 'playground'), log));
    await drain();
    expect(handler.events.map((event) => event.conversation.platform)).toEqual(['slack', 'playground']);
    handler.finish();
    handler.finish();
    await Promise.all([first.idle(), second.idle()]);
    expect(log.filter((entry) => entry.startsWith('reply'))).toEqual([]);
  });

  it('drops a retry for the dedupe window only', async () => {
    const clock = new ManualClock();
    const handler = new ManualHandler();
    const intake = new EventIntake({
      store: new MemoryStore(clock),
      handler,
      logger: silentLogger,
      dedupeMs: 60_000,
    });
    await intake.receive(delivery(mention('Ev1'), []));
    await drain();
    clock.advance(61_000);
    await intake.receive(delivery(mention('Ev1'), []));
    await drain();
    expect(handler.events).toHaveLength(2);
  });

  it('tells the person clearly when an event does not validate, and never calls the handler', async () => {
    const handler = new ManualHandler();
    const intake = new EventIntake({ store: new MemoryStore(), handler, logger: silentLogger });
    const log: string[] = [];
    const bad = { ...mention('Ev1'), kind: 'action', action: 'approve', target: 'x'.repeat(500) };
    await intake.receive(delivery(bad, log));
    await intake.idle();
    expect(handler.events).toEqual([]);
    expect(log).toEqual([
      'ack',
      expect.stringMatching(
        /^reply: I could not read that request, so I did nothing with it \(target: .*\)\.$/,
      ),
    ]);
    expect(log[1]).not.toContain('xxxxxxxx');
  });

  it('does nothing for a delivery the adapter chose to ignore', async () => {
    const handler = new ManualHandler();
    const intake = new EventIntake({ store: new MemoryStore(), handler, logger: silentLogger });
    const log: string[] = [];
    await intake.receive(delivery(undefined, log));
    await intake.idle();
    expect(log).toEqual(['ack']);
    expect(handler.events).toEqual([]);
  });

  it('apologizes privately when the handler fails, and keeps taking events', async () => {
    const failing = {
      handle: async (): Promise<RouterReply> => {
        throw new Error('the router broke');
      },
    };
    const intake = new EventIntake({ store: new MemoryStore(), handler: failing, logger: silentLogger });
    const log: string[] = [];
    await intake.receive(delivery(mention('Ev1'), log));
    await intake.idle();
    expect(log).toEqual(['ack', `reply: ${SOMETHING_WENT_WRONG}`]);
  });
  it('tells the person to send it again when the store fails at the dedupe claim, and never calls the handler', async () => {
    const store = new MemoryStore();
    store.claim = async () => {
      throw new SystemError(ErrorCode.StoreUnavailable, 'Redis store could not claim: the client is offline');
    };
    const handler = new ManualHandler();
    const intake = new EventIntake({ store, handler, logger: silentLogger });
    const log: string[] = [];
    await intake.receive(delivery(mention('Ev1'), log));
    await intake.idle();
    expect(log).toEqual(['ack', `reply: ${STORE_UNREACHABLE_REPLY}`]);
    expect(handler.events).toEqual([]);
  });
});

describe('event intake with the real router', () => {
  let harness: ApprovalHarness;
  afterEach(async () => harness?.close());

  it('runs a mention as one task, and drops a retried delivery of the same event', async () => {
    harness = await createApprovalHarness('memory');
    const router = new Router({
      kernel: harness.kernel,
      settings: SettingsSchema.parse({ permissions }),
      logger: silentLogger,
      clock: harness.clock,
    });
    const intake = new EventIntake({ store: harness.kernel.store, handler: router, logger: silentLogger });
    harness.fake.reply(text('api is up'));
    const event: ChatEvent = {
      kind: 'message',
      eventId: 'Ev-retried',
      principal: harness.person('alice'),
      conversation: { platform: 'playground', channelId: 'ops', threadId: 't1' },
      text: 'is the api up?',
      mentioned: true,
      direct: false,
    };
    await intake.receive(delivery(event, []));
    await intake.idle();
    await harness.kernel.idle();
    await intake.receive(delivery(event, []));
    await intake.idle();
    await harness.kernel.idle();
    expect(harness.fake.requests).toHaveLength(1);
    expect(harness.chat.ofKind('result')).toHaveLength(1);
  });
});
