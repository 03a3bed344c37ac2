// The double-click race against the real backends: two Store instances on one SQLite file, on one Redis, and two processes.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createClient } from '@keyv/redis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DecideResult } from '../../agent/policy/approvals.js';
import { ApprovalBook } from '../../agent/policy/approvals.js';
import { openStore } from '../../agent/store/open-store.js';
import { RedisStore } from '../../agent/store/redis-store.js';
import type { Store } from '../../agent/store/store.js';
import { TEST_REDIS_URL } from '../store/redis-test-keys.js';
import { approvalRaceCases } from './approval-race.case.js';
import { restartRequest } from './policy-fixtures.js';

const redisUrl = TEST_REDIS_URL;
const redisPrefix = `opsbot-test:policy-race:${process.pid}:${randomUUID().slice(0, 8)}:`;

async function redisReachable(): Promise<boolean> {
  try {
    const probe = await RedisStore.connect(redisUrl, { prefix: redisPrefix, connectTimeoutMs: 1000 });
    await probe.close();
    return true;
  } catch {
    return false;
  }
}
const hasRedis = await redisReachable();

/** Races one Approve click from each of two child processes, released together, and returns their results. */
async function raceTwoProcesses(
  storeUrl: string,
  prefix: string,
  approvalId: string,
): Promise<DecideResult[]> {
  const script = new URL('./approval-click-child.ts', import.meta.url).pathname;
  const children = ['admin', 'operator2'].map((person) =>
    spawn(process.execPath, ['--import', 'tsx', script, storeUrl, prefix, approvalId, person], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const lines = children.map((child) => createInterface({ input: child.stdout! })[Symbol.asyncIterator]());
  for (const line of lines) expect((await line.next()).value).toBe('ready');
  for (const child of children) child.stdin!.write('go\n');
  const results = await Promise.all(
    lines.map(async (line) => JSON.parse(String((await line.next()).value)) as DecideResult),
  );
  await Promise.all(children.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)));
  return results;
}

function requestOn(store: Store) {
  return new ApprovalBook(store).request(restartRequest());
}

function expectOneDecision(results: DecideResult[]) {
  const decided = results.filter((result) => result.kind === 'decided');
  expect(decided).toHaveLength(1);
  const loser = results.find((result) => result.kind !== 'decided');
  expect(loser).toMatchObject({
    kind: 'already_decided',
    decision: 'approve',
    by: { key: decided[0]!.by.key },
  });
}

describe('SQLite: two store instances on one file', () => {
  let directory: string;
  let first: Store;
  let second: Store;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'opsbot-policy-race-'));
    const url = `sqlite://${join(directory, 'opsbot.sqlite')}`;
    first = await openStore(url);
    second = await openStore(url);
  });

  afterEach(async () => {
    await first.close();
    await second.close();
    await rm(directory, { recursive: true, force: true });
  });

  approvalRaceCases(() => ({ first, second }));

  it('two processes clicking Approve at once make exactly one decision', async () => {
    const approval = await requestOn(first);
    expectOneDecision(
      await raceTwoProcesses(`sqlite://${join(directory, 'opsbot.sqlite')}`, '-', approval.id),
    );
    expect((await new ApprovalBook(second).get(approval.id))?.status).toBe('approved');
  });
});

describe.skipIf(!hasRedis)(
  `Redis: two connections under a unique key prefix${hasRedis ? '' : ` (skipped: no Redis answered at ${redisUrl})`}`,
  () => {
    let first: Store;
    let second: Store;

    beforeEach(async () => {
      first = await RedisStore.connect(redisUrl, { prefix: redisPrefix });
      second = await RedisStore.connect(redisUrl, { prefix: redisPrefix });
    });

    afterEach(async () => {
      await first.close();
      await second.close();
    });

    afterAll(async () => {
      const admin = createClient({ url: redisUrl });
      await admin.connect();
      const keys: string[] = [];
      for await (const batch of admin.scanIterator({ MATCH: `${redisPrefix}*`, COUNT: 500 }))
        keys.push(...batch);
      if (keys.length > 0) await admin.del(keys);
      await admin.close();
    });

    approvalRaceCases(() => ({ first, second }));

    it('two processes clicking Approve at once make exactly one decision', async () => {
      const approval = await requestOn(first);
      expectOneDecision(await raceTwoProcesses(redisUrl, redisPrefix, approval.id));
      expect((await new ApprovalBook(second).get(approval.id))?.status).toBe('approved');
    });
  },
);
