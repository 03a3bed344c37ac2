// Run listeners: every change reaches the general listeners, and a run's own listeners hear only that run.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../agent/logger.js';
import type { Run } from '../../agent/run.js';
import { RunListeners } from '../../agent/run-listeners.js';
import { sampleRuns } from './run-machine-samples.js';

const runA = { ...sampleRuns.running, id: 'run_a' } as Run;
const runB = { ...sampleRuns.running, id: 'run_b' } as Run;

describe('RunListeners', () => {
  it('tells a run its own changes only, and every change to the general listeners', () => {
    const listeners = new RunListeners(silentLogger);
    const all: string[] = [];
    const onlyA: string[] = [];
    listeners.add((run) => all.push(run.id));
    const stop = listeners.addFor('run_a', (run) => onlyA.push(run.id));
    listeners.emit(runA);
    listeners.emit(runB);
    stop();
    listeners.emit(runA);
    expect(all).toEqual(['run_a', 'run_b', 'run_a']);
    expect(onlyA).toEqual(['run_a']);
  });

  it('goes on past a listener that throws', () => {
    const listeners = new RunListeners(silentLogger);
    const heard: string[] = [];
    listeners.addFor('run_a', () => {
      throw new Error('broken listener');
    });
    listeners.addFor('run_a', (run) => heard.push(run.id));
    listeners.emit(runA);
    expect(heard).toEqual(['run_a']);
  });
});
