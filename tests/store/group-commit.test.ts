// Group commit: batches asked for in one turn of the loop share one commit; a failing group is retried batch by
// batch, so only the batch at fault fails; and a store closed meanwhile still writes what was asked for.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Batch, GroupCommit } from '../../agent/store/group-commit.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';

describe('GroupCommit', () => {
  it('commits the batches of one turn together, and resolves each caller after that commit', async () => {
    const commits: number[] = [];
    const written: string[] = [];
    const group = new GroupCommit((batches) => {
      commits.push(batches.length);
      for (const batch of batches) for (const write of batch) write();
    });
    const batch = (name: string): Batch => [() => written.push(name)];
    const done = Promise.all(
      ['a', 'b', 'c'].map((name) => group.add(batch(name), () => written.push(`${name} alone`))),
    );
    expect(written).toEqual([]);
    await done;
    expect(commits).toEqual([3]);
    expect(written).toEqual(['a', 'b', 'c']);
    await group.add(batch('d'), () => {});
    expect(commits).toEqual([3, 1]);
  });

  it('fails only the batch at fault when a group fails, writing the others on their own', async () => {
    const alone: string[] = [];
    const group = new GroupCommit(() => {
      throw new Error('the group failed');
    });
    const ok = group.add([], () => alone.push('ok'));
    const bad = group.add([], () => {
      throw new Error('disk full');
    });
    const alsoOk = group.add([], () => alone.push('also ok'));
    await expect(ok).resolves.toBeUndefined();
    await expect(bad).rejects.toThrow('disk full');
    await expect(alsoOk).resolves.toBeUndefined();
    expect(alone).toEqual(['ok', 'also ok']);
  });

  it('writes what was asked for before the SQLite store closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsbot-group-commit-'));
    try {
      const path = join(dir, 'opsbot.sqlite');
      const store = new SqliteStore(path);
      const pending = store.writeAll([
        { kind: 'set', key: 'run:1', value: { status: 'finished' } },
        { kind: 'addToSet', set: 'runs:active', member: 'run_1' },
      ]);
      await store.close();
      await pending;
      const reopened = new SqliteStore(path);
      expect(await reopened.get('run:1')).toEqual({ status: 'finished' });
      expect(await reopened.members('runs:active')).toEqual(['run_1']);
      await reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
