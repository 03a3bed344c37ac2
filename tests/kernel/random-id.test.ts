// Random ids from the byte pool: the asked length, hex, and never the same bytes twice.
import { describe, expect, it } from 'vitest';
import { randomHex } from '../../agent/random-id.js';

describe('randomHex', () => {
  it('gives hex of the asked length, and no two alike across pool refills', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 2_000; index++) {
      const hex = randomHex(8);
      expect(hex).toMatch(/^[0-9a-f]{16}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(2_000);
    expect(randomHex(5000)).toMatch(/^[0-9a-f]{10000}$/);
  });
});
