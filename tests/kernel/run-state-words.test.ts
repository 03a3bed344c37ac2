// The words a run's status is said in: whose answer it waits for, in the playground and on the platforms.
import { describe, expect, it } from 'vitest';
import { possessive } from '../../agent/run-state-words.js';

describe('possessive', () => {
  it("says the playground's You as 'your', and anyone else with 's", () => {
    expect(possessive('You')).toBe('your');
    expect(possessive('Alice')).toBe("Alice's");
  });
});
