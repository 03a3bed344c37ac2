// Choosing the Store backend from OPSBOT_STORE_URL, and the errors for URLs it cannot use.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { CallerError, ErrorCode } from '../../agent/errors.js';
import { defaultStoreUrl, openStore, parseStoreUrl } from '../../agent/store/open-store.js';
import { maskUrlUserinfo } from '../../agent/url-userinfo.js';
import { TEST_REDIS_URL } from './redis-test-keys.js';

function settingsError(url: string): CallerError {
  try {
    parseStoreUrl(url);
  } catch (error) {
    expect(error).toBeInstanceOf(CallerError);
    expect((error as CallerError).code).toBe(ErrorCode.InvalidSettings);
    return error as CallerError;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('parseStoreUrl', () => {
  it('defaults to a SQLite file under ./data', () => {
    expect(defaultStoreUrl).toBe('sqlite://./data/opsbot.sqlite');
    expect(parseStoreUrl(defaultStoreUrl)).toEqual({ backend: 'sqlite', path: './data/opsbot.sqlite' });
  });

  it('keeps SQLite paths as written, relative or absolute', () => {
    expect(parseStoreUrl('sqlite://data/opsbot.sqlite')).toEqual({
      backend: 'sqlite',
      path: 'data/opsbot.sqlite',
    });
    expect(parseStoreUrl('sqlite:///var/lib/opsbot/opsbot.sqlite')).toEqual({
      backend: 'sqlite',
      path: '/var/lib/opsbot/opsbot.sqlite',
    });
    expect(parseStoreUrl('SQLITE://./x.sqlite')).toEqual({ backend: 'sqlite', path: './x.sqlite' });
  });

  it('accepts redis:// and rediss:// with credentials and a database number', () => {
    expect(parseStoreUrl('redis://127.0.0.1:6379')).toEqual({
      backend: 'redis',
      url: 'redis://127.0.0.1:6379',
    });
    expect(parseStoreUrl('rediss://user:secret@cache.internal:6380/2')).toEqual({
      backend: 'redis',
      url: 'rediss://user:secret@cache.internal:6380/2',
    });
  });

  it('accepts memory://', () => {
    expect(parseStoreUrl('memory://')).toEqual({ backend: 'memory' });
  });

  it('refuses an unknown scheme, naming the variable and the accepted forms, password masked', () => {
    const error = settingsError('postgres://opsbot:secret@db.internal/opsbot');
    expect(error.message).toContain('OPSBOT_STORE_URL');
    expect(error.message).toContain('unknown scheme "postgres://"');
    for (const form of ['sqlite://', 'redis://', 'rediss://', 'memory://'])
      expect(error.message).toContain(form);
    expect(error.message).toContain('postgres://***@db.internal');
    expect(error.message).not.toContain('secret');
  });

  it('refuses a bare path, an empty SQLite path and a Redis URL without a host', () => {
    expect(settingsError('./data/opsbot.sqlite').message).toContain('not a URL with a scheme');
    expect(settingsError('sqlite://').message).toContain('names no database file');
    expect(settingsError('redis://').message).toContain('names no Redis host');
  });
});

describe('maskUrlUserinfo', () => {
  it('hides only the password', () => {
    expect(maskUrlUserinfo('redis://user:secret@host:6379/0')).toBe('redis://***@host:6379/0');
    expect(maskUrlUserinfo('redis://:secret@host:6379')).toBe('redis://***@host:6379');
    expect(maskUrlUserinfo('redis://host:6379')).toBe('redis://host:6379');
    expect(maskUrlUserinfo('not a url://user:secret@host')).toBe('not a url://***@host');
  });
});

describe('openStore', () => {
  it('opens memory:// with the injected clock', async () => {
    const clock = new ManualClock();
    const store = await openStore('memory://', { clock });
    expect(store.description).toMatch(/^memory/);
    await store.set('key', 'value', 1000);
    clock.advance(1000);
    expect(await store.get('key')).toBeUndefined();
    await store.close();
  });

  it('opens sqlite:// at the given path with the injected clock', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'opsbot-open-store-'));
    try {
      const path = join(directory, 'deeper', 'opsbot.sqlite');
      const clock = new ManualClock();
      const store = await openStore(`sqlite://${path}`, { clock });
      expect(store.description).toBe(`sqlite ${path}`);
      await store.set('key', 'value', 1000);
      expect(await store.get('key')).toBe('value');
      clock.advance(1000);
      expect(await store.get('key')).toBeUndefined();
      await store.close();
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('opens redis:// and says where it points', async () => {
    const store = await openStore(TEST_REDIS_URL);
    try {
      expect(store.description).toBe(`redis ${TEST_REDIS_URL} (keys under "opsbot:")`);
      await store.ping();
    } finally {
      await store.close();
    }
  });

  it('refuses an unknown scheme before opening anything', async () => {
    await expect(openStore('mongodb://localhost/opsbot')).rejects.toThrow(/OPSBOT_STORE_URL/);
  });
});
