// One contender in the cross-process SQLite claim race: opens the store, waits for "go", then claims repeatedly.
import { once } from 'node:events';
import { SqliteStore } from '../../agent/store/sqlite-store.js';

const [path, owner, attempts] = process.argv.slice(2);
if (!path || !owner || !attempts) throw new Error('usage: claim-race-child <sqlite path> <owner> <attempts>');

const store = new SqliteStore(path);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.destroy();

let won = 0;
for (let attempt = 0; attempt < Number(attempts); attempt += 1) {
  if (await store.claim('race', owner, 60_000)) won += 1;
}
await store.close();
process.stdout.write(`${JSON.stringify({ owner, won })}\n`);
