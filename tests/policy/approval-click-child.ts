// One replica in the cross-process double-click race: opens the shared store, waits for "go", clicks Approve.
import { once } from 'node:events';
import { ApprovalBook } from '../../agent/policy/approvals.js';
import { openStore } from '../../agent/store/open-store.js';
import { RedisStore } from '../../agent/store/redis-store.js';
import { people, settings } from './policy-fixtures.js';

const [storeUrl, redisPrefix, approvalId, person] = process.argv.slice(2);
if (!storeUrl || !redisPrefix || !approvalId || !person || !Object.hasOwn(people, person)) {
  throw new Error('usage: approval-click-child <store url> <redis prefix or -> <approval id> <person>');
}
const decider = people[person as keyof typeof people];

const store = storeUrl.startsWith('redis')
  ? await RedisStore.connect(storeUrl, { prefix: redisPrefix })
  : await openStore(storeUrl);
const book = new ApprovalBook(store);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.destroy();

const result = await book.decide({ approvalId, decider, decision: 'approve', settings });
await store.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
