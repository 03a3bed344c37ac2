// A grant in words: what it covers, the same on the CLI's table, chat's list and revoke's reply.
import { describe, expect, it } from 'vitest';
import type { Grant } from '../../agent/policy/approval-grants.js';
import { grantEndedText, grantScopeText } from '../../agent/policy/grant-text.js';

const grant: Grant = {
  id: 'grt_0123456789abcdef',
  tool: 'restart_service',
  requester: { key: 'slack:UALICE', displayName: 'Alice' },
  channel: { platform: 'slack', channelId: 'C0OPS', channelName: 'ops' },
  args: '{"service":"api","token":"s3cret"}',
  displayArgs: { service: 'api', token: '[REDACTED]' },
  grantedBy: { key: 'slack:UBOB', displayName: 'Bob' },
  grantedAt: Date.UTC(2026, 0, 1, 12, 0),
  until: Date.UTC(2026, 0, 1, 13, 5),
  approvalId: 'apv_1',
};

describe('grant text', () => {
  it('names the tool, the redacted arguments, the requester and the channel', () => {
    expect(grantScopeText(grant)).toBe(
      'restart_service {"service":"api","token":"[REDACTED]"} for Alice in #ops',
    );
  });

  it('falls back to the canonical arguments and the channel id when there is nothing better', () => {
    const { displayArgs: _, ...bare } = grant;
    const unnamed = { ...bare, channel: { platform: 'discord' as const, channelId: '8000' } };
    expect(grantScopeText(unnamed, (json) => `<${json}>`)).toBe(
      'restart_service <{"service":"api","token":"s3cret"}> for Alice in discord:8000',
    );
  });

  it('says what an ended grant covered, and until when', () => {
    expect(grantEndedText(grant)).toBe(
      'It covered restart_service {"service":"api","token":"[REDACTED]"} for Alice in #ops, until 13:05 UTC; ' +
        'those calls wait for an approver again.',
    );
  });
});
