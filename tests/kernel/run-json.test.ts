// A run's JSON made from the pieces already serialized: the same value as JSON.stringify, through a real Store,
// and a piece changed in place after its first save is caught by the check the tests run with.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Run } from '../../agent/run.js';
import { checkRunJson, runJson } from '../../agent/run-json.js';
import { loadRunRecord } from '../../agent/run-migrations.js';
import { RunRepository } from '../../agent/run-repository.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';

function storedRun(): Run {
  const raw = JSON.parse(readFileSync(new URL('../fixtures/run-v3.fixture.json', import.meta.url), 'utf8'));
  return loadRunRecord(raw, 'fixture');
}

describe('runJson', () => {
  it('is the same value as JSON.stringify, for a stored run with messages, events and completed calls', () => {
    const run = storedRun();
    expect(run.messages.length).toBeGreaterThan(0);
    expect(run.events.length).toBeGreaterThan(0);
    expect(JSON.parse(runJson(run))).toEqual(JSON.parse(JSON.stringify(run)));
  });

  it('stays right as a run grows by new lists, saving after each step', async () => {
    const store = new SqliteStore(':memory:');
    const runs = new RunRepository(store);
    let run = storedRun();
    await runs.save(run);
    for (let step = 1; step <= 3; step++) {
      run = {
        ...run,
        step: run.step + step,
        messages: [...run.messages, { role: 'user', content: `answer ${step}: "quoted", \\ and ünïcode` }],
        events: [
          ...run.events,
          { type: 'answer_received', at: 1_000 + step, step: run.step, answer: `reply ${step}`, by: 'Alice' },
        ],
        completedCalls: {
          ...run.completedCalls,
          [`tool:{"n":${step}}`]: { callId: `c${step}`, content: '{}' },
        },
      } as Run;
      await runs.save(run);
      expect(await runs.load(run.id)).toEqual(run);
    }
    await store.close();
  });

  it('is caught by the check when a saved event is changed in place', () => {
    const run = storedRun();
    const json = runJson(run);
    checkRunJson(run, json);
    const event = run.events[0] as { at: number };
    event.at += 1;
    const stale = runJson(run);
    expect(() => checkRunJson(run, stale)).toThrow(/changed in place after it was saved/);
  });
});
