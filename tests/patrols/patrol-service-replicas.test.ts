// Patrol services across processes: a restart while a check is firing, and three replicas on one tick.
import { afterEach, describe, expect, it } from 'vitest';
import { patrolRecordKeys } from '../../scheduled/patrol-records.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import {
  CheckSwitch,
  MINUTE,
  newReplica,
  type Replica,
  reportPosts,
  StoreBench,
  slot,
  T0,
} from './patrol-service-rig.js';

let bench: StoreBench | undefined;
const replicas: Replica[] = [];
afterEach(async () => {
  for (const replica of replicas.splice(0)) await replica.stop();
  await bench?.close();
  bench = undefined;
});

describe('a restart while a check is firing', () => {
  it('posts nothing new, and the new process resolves in the report the old one posted', async () => {
    bench = new StoreBench('sqlite');
    const { clock } = bench;
    const chat = new RecordingChatPort();
    const checks = new CheckSwitch().set('api', 'fail');
    const firstStore = await bench.connect();
    const first = newReplica({ store: firstStore, clock, chat, checks, owner: 'process-a' });
    await first.service.runPatrol('web', slot(T0));
    expect(reportPosts(chat)).toHaveLength(1);
    const [report] = reportPosts(chat);
    await first.stop();
    await firstStore.close();

    clock.advance(5 * MINUTE);
    const second = newReplica({ store: await bench.connect(), clock, chat, checks, owner: 'process-b' });
    replicas.push(second);
    await second.service.runPatrol('web', slot(clock.now()));
    expect(chat.posts).toHaveLength(1);

    checks.set('api', 'pass');
    clock.advance(5 * MINUTE);
    await second.service.runPatrol('web', slot(clock.now()));
    const replies = reportPosts(chat).slice(1);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.conversation.threadId).toBe(report!.messageId);
    expect(replies[0]!.report).toMatchObject({ reportId: report!.report.reportId, level: 'resolved' });
    expect(chat.posts[0]!.updates.at(-1)).toMatchObject({ level: 'resolved', buttons: false });
  });
});

describe.each(['redis', 'sqlite'] as const)('three kernels on one %s hitting the same tick', (backend) => {
  it('run the checks once and post exactly one report', async () => {
    bench = new StoreBench(backend);
    const { clock } = bench;
    const chat = new RecordingChatPort();
    const checks = new CheckSwitch().set('api', 'fail');
    for (const owner of ['replica-0', 'replica-1', 'replica-2'])
      replicas.push(newReplica({ store: await bench.connect(), clock, chat, checks, owner }));
    const outcomes = await Promise.all(replicas.map(({ service }) => service.tick('web', T0)));
    expect(outcomes.sort()).toEqual(['ran', 'taken', 'taken']);
    expect(checks.calls).toEqual(['api']);
    expect(reportPosts(chat)).toHaveLength(1);
    expect(chat.posts).toHaveLength(1);
    expect(await replicas[1]!.service.repository.history('web')).toHaveLength(1);

    // The next slot: still failing, whoever wins it posts nothing.
    clock.advance(5 * MINUTE);
    const next = await Promise.all(replicas.map(({ service }) => service.tick('web', T0 + 5 * MINUTE)));
    expect(next.filter((outcome) => outcome === 'ran')).toHaveLength(1);
    expect(checks.calls).toEqual(['api', 'api']);
    expect(chat.posts).toHaveLength(1);
  });
});

describe.each(['redis', 'sqlite'] as const)('a slot run again on another replica of one %s', (backend) => {
  it('posts nothing the first run posted, and saves no state pointing at a report it did not post', async () => {
    bench = new StoreBench(backend);
    const { clock } = bench;
    const chat = new RecordingChatPort();
    const checks = new CheckSwitch().set('api', 'fail');
    for (const owner of ['replica-0', 'replica-1'])
      replicas.push(newReplica({ store: await bench.connect(), clock, chat, checks, owner }));
    const [first, second] = replicas;
    await first!.service.runPatrol('web', slot(T0));
    // As if the first run stopped after posting, before it saved the states.
    await first!.store.delete(patrolRecordKeys.checks('web'));
    await second!.service.runPatrol('web', slot(T0));
    expect(chat.posts).toHaveLength(1);
    expect((await second!.service.repository.history('web')).map((entry) => entry.posted)).toEqual([
      ['report'],
      [],
    ]);
    expect(await second!.service.repository.states('web')).toEqual({});
  });
});
