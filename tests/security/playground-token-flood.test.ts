// Attack: locking the real user out. Wrong tokens from many client ids and addresses used to spend the total
// ceiling, after which the right token too got 429. Now failures are counted per source address as well, and
// a right token gets past the total ceiling (never past its own client's or address's limit).
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceAddressKey } from '../../bot/playground/source-address.js';
import { startTestPlayground, type TestPlayground } from '../playground/helpers/test-playground.js';

const TOKEN = '69fa8d6bac35ee15fbc1ca3a74a6526c7d419978abb79a3c';

let playground: TestPlayground;
beforeAll(async () => {
  playground = await startTestPlayground({ token: TOKEN });
}, 30_000);
afterAll(async () => playground?.stop());

/** GET /api/info with a token, from a chosen loopback source address (Linux routes all of 127/8 to lo). */
function info(token: string, client: string, from: string): Promise<number> {
  const url = new URL(playground.url);
  return new Promise((resolve, reject) => {
    httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: '/api/info',
        localAddress: from,
        headers: { 'x-opsbot-token': token, 'x-opsbot-client': client },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    )
      .on('error', reject)
      .end();
  });
}

describe('wrong playground tokens from many places', () => {
  it('attack: rotating client ids from one address are stopped at that address, whatever the ids', async () => {
    const from = '127.0.0.2';
    const statuses: number[] = [];
    for (let guess = 0; guess < 40; guess++)
      statuses.push(await info(`guess-${guess}`, `client-r${guess}`, from));
    // 30 wrong tokens per address a minute, then 429 without the token even being compared.
    expect(statuses.slice(0, 30).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(30).every((status) => status === 429)).toBe(true);
    expect(await info(TOKEN, 'client-fresh', from)).toBe(429);
  });

  it('attack: past 100 wrong tokens a minute from rotating ids and addresses, the right token also gets 429', async () => {
    // 12 addresses with 10 client ids each: 120 wrong tokens, none over its client's or address's limit.
    const statuses: number[] = [];
    for (let address = 10; address < 22; address++) {
      for (let client = 0; client < 10; client++) {
        statuses.push(
          await info(`wrong-${address}-${client}`, `client-${address}-${client}`, `127.0.0.${address}`),
        );
      }
    }
    // The 40 from the first case count toward the total too: the flood is seen, and wrong tokens get 429.
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    expect(await info('wrong-again', 'client-late', '127.0.0.30')).toBe(429);
    // The real user, from an address that sent nothing wrong, with no cookie: let in.
    expect(await info(TOKEN, 'client-alice', '127.0.0.31')).toBe(200);
    expect(await info(TOKEN, 'client-alice-2', '127.0.0.1')).toBe(200);
  });
});

describe('source addresses', () => {
  it('counts an IPv6 peer by its /64 and an IPv4-mapped peer as its IPv4 address', () => {
    expect(sourceAddressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(sourceAddressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(sourceAddressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(sourceAddressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(sourceAddressKey('::ffff:c000:207')).toBe('192.0.2.7');
    expect(sourceAddressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(sourceAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(sourceAddressKey(undefined)).toBe('unknown');
  });
});
