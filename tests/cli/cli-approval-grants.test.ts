// `opsbot approve --for`, `opsbot grants` and `opsbot revoke`: approval grants from the terminal, with their exit
// codes: 0 when done, 1 when refused, 2 for a usage error.
import { describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { useApprovalTerminal } from './approval-terminal.js';

const terminal = useApprovalTerminal();
const { cli, waitingRestart } = terminal;

describe('opsbot approve --for, opsbot grants and opsbot revoke', () => {
  it('makes a grant that runs the same call again without a card, lists it, and ends it on revoke', async () => {
    const { approvalId } = await waitingRestart();
    terminal.fake.reply(text('Restarted the api.'));
    const approved = await cli(['approve', approvalId, '--for', '1h', '--as', 'bob']);
    expect(approved.out).toMatch(/Granted until \d\d:\d\d UTC \(grt_[0-9a-f]{16}\)/);
    expect(approved.code).toBe(0);
    const listed = await cli(['grants']);
    expect(listed.code).toBe(0);
    const grantId = /grt_[0-9a-f]{16}/.exec(listed.out)?.[0];
    expect(grantId).toBeDefined();
    expect(listed.out).toMatch(/restart_service\s+\{"service":"api"\}\s+Olive\s+cli:terminal\s+Bob\s+\d{4}-/);

    terminal.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    terminal.fake.reply(text('Restarted the api again.'));
    const again = await cli(['run', 'restart the api', '--as', 'olive']);
    expect(again.out).not.toContain('opsbot approve');
    expect(again.out).toMatch(/under Bob's grant/);
    expect(again.code).toBe(0);

    const viewer = await cli(['revoke', grantId!, '--as', 'vera']);
    expect(viewer.out).toMatch(/Only an admin or someone who may approve restart_service/);
    expect(viewer.code).toBe(1);
    const revoked = await cli(['revoke', grantId!, '--as', 'bob']);
    expect(revoked.out).toContain(
      `Ended Bob's grant ${grantId}. It covered restart_service {"service":"api"} for Olive in cli:terminal, until `,
    );
    expect(revoked.code).toBe(0);
    expect((await cli(['grants'])).out).toContain('No approval grants in force.');
    expect((await cli(['revoke', grantId!, '--as', 'bob'])).code).toBe(1);
    await waitingRestart();
    const audit = await cli(['audit', '--json']);
    const kinds = audit.out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line).kind as string)
      .filter((kind) => kind.startsWith('grant_'));
    expect(kinds).toEqual(['grant_created', 'grant_used', 'grant_revoked']);
  });

  it('exit 1 for a duration not in permissions.grant_durations, 2 for one that is not a duration', async () => {
    const { approvalId } = await waitingRestart();
    const long = await cli(['approve', approvalId, '--for', '2h', '--as', 'bob']);
    expect(long.out).toContain('A grant may last 15m, 1h, 4h (permissions.grant_durations), not 2h');
    expect(long.code).toBe(1);
    const vague = await cli(['approve', approvalId, '--for', 'soon', '--as', 'bob']);
    expect(vague.out).toContain('--for needs a duration such as 15m, 1h or 4h, not "soon"');
    expect(vague.code).toBe(2);
    expect((await cli(['deny', approvalId, '--for', '1h', '--as', 'bob'])).code).toBe(2);
    expect((await cli(['revoke'])).code).toBe(2);
  });
});
