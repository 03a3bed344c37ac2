// Grant patterns: which a call may be granted under, and what a grant made with one covers.
import { describe, expect, it } from 'vitest';
import { covers } from '../../agent/policy/approval-grants.js';
import { grantOfferFor } from '../../agent/policy/grant-offer.js';
import {
  argumentsCovered,
  describePattern,
  GrantPatternsSchema,
  patternsFor,
} from '../../agent/policy/grant-patterns.js';
import { stableJson } from '../../agent/stable-json.js';

const patterns = GrantPatternsSchema.parse({
  app: { service: ['api', 'worker'] },
  'app-eu': { service: ['api', 'worker'], region: ['eu-west-1', 'eu-central-1'] },
});
const app = { name: 'app', args: patterns.app! };

describe('grant patterns', () => {
  it('offers only the patterns that already hold the call', () => {
    expect(patternsFor(patterns, { service: 'api', region: 'us-east-1' }).map((p) => p.name)).toEqual([
      'app',
    ]);
    expect(patternsFor(patterns, { service: 'worker', region: 'eu-west-1' }).map((p) => p.name)).toEqual([
      'app',
      'app-eu',
    ]);
    expect(patternsFor(patterns, { service: 'db' })).toEqual([]);
    expect(patternsFor(undefined, { service: 'api' })).toEqual([]);
  });

  it('covers any listed value of a widened argument, and every other argument only as approved', () => {
    const approved = { service: 'api', force: false };
    expect(argumentsCovered(approved, { service: 'worker', force: false }, app)).toBe(true);
    expect(argumentsCovered(approved, { service: 'db', force: false }, app)).toBe(false);
    expect(argumentsCovered(approved, { service: 'worker', force: true }, app)).toBe(false);
    // An argument the approved call lacked must be lacking, and one it had must be there.
    expect(argumentsCovered(approved, { service: 'worker', force: false, extra: 1 }, app)).toBe(false);
    expect(argumentsCovered(approved, { service: 'worker' }, app)).toBe(false);
    expect(argumentsCovered({ service: 'api' }, { service: 'worker', note: undefined }, app)).toBe(true);
    // Values compare by type: the string "1" is not the number 1.
    const counts = { name: 'n', args: { count: [1, 2] } };
    expect(argumentsCovered({ count: 1 }, { count: '2' }, counts)).toBe(false);
    expect(argumentsCovered({ count: 1 }, { count: 2 }, counts)).toBe(true);
  });

  it('a grant without a pattern covers equal arguments only, in any key order', () => {
    const grant = { args: stableJson({ service: 'api', force: false }) };
    expect(covers(grant, { force: false, service: 'api' })).toBe(true);
    expect(covers(grant, { force: false, service: 'worker' })).toBe(false);
    expect(covers({ ...grant, pattern: app }, { force: false, service: 'worker' })).toBe(true);
  });

  it('says in words what a pattern lets vary', () => {
    expect(describePattern({ name: 'app-eu', args: patterns['app-eu']! })).toBe(
      'any service in api, worker; any region in eu-west-1, eu-central-1',
    );
  });

  it('refuses patterns that would not mean anything', () => {
    expect(GrantPatternsSchema.safeParse({ Bad: { service: ['a', 'b'] } }).success).toBe(false);
    expect(GrantPatternsSchema.safeParse({ one: { service: ['api'] } }).success).toBe(false);
    expect(GrantPatternsSchema.safeParse({ none: {} }).success).toBe(false);
  });

  it('offers grants to a one-approver tool, and none to a two-person tool unless it says grants: true', () => {
    const durations = [15 * 60_000, 60 * 60_000];
    expect(grantOfferFor({ grantPatterns: patterns }, { service: 'api' }, durations, 1)).toEqual({
      durationsMs: durations,
      patterns: [app],
    });
    expect(grantOfferFor({}, { service: 'api' }, durations, 2)).toBeUndefined();
    expect(grantOfferFor({ approvals: 2, grants: true }, {}, durations, 2)?.durationsMs).toEqual(durations);
    expect(grantOfferFor({ grants: false }, {}, durations, 1)).toBeUndefined();
    expect(grantOfferFor({}, {}, undefined, 1)).toBeUndefined();
  });
});
