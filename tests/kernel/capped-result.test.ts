// A tool result past the run's output cap stays JSON: its longest lists are cut from their end, with a count of
// what was left out, so the model and the command engine's tables still read it.
import { describe, expect, it } from 'vitest';
import { cappedResultJson } from '../../agent/capped-result.js';

const matches = Array.from({ length: 100 }, (_, index) => ({
  file: '/var/log/api.log',
  line: index + 1,
  text: `ERROR request ${index} failed: upstream timeout after 3000 ms`,
}));
const result = { tool: 'log_search', ok: true, summary: 'Found 100 lines.', data: { matches, files: 1 } };

describe('a capped tool result', () => {
  it('is the result as it was when it fits', () => {
    expect(cappedResultJson(100_000, result)).toBe(JSON.stringify(result));
  });

  it('keeps the summary, the other data and the first items of its longest list, and counts the rest', () => {
    const capped = JSON.parse(cappedResultJson(2_000, result));
    expect(capped.summary).toBe('Found 100 lines.');
    expect(capped.data.files).toBe(1);
    expect(capped.data.matches.length).toBeGreaterThan(0);
    expect(capped.data.matches[0]).toEqual(matches[0]);
    expect(capped.data.matches.length + capped.items_left_out.matches).toBe(100);
    expect(JSON.stringify(capped).length).toBeLessThanOrEqual(2_000);
  });

  it('cuts as text, with the count of characters cut, what no cut list makes fit', () => {
    const huge = { ...result, data: { blob: 'x'.repeat(10_000) } };
    const capped = cappedResultJson(1_000, huge);
    expect(capped).toMatch(/characters truncated/);
    expect(capped.length).toBeLessThan(1_200);
  });
});
