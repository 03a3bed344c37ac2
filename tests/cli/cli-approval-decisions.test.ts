// `opsbot approve` and `opsbot deny` for scripts: 0 when the decision was made, 1 when it was refused or too late;
// and the terminal's card says what the approved call will run and what that does.
import { describe, expect, it } from 'vitest';
import { text } from '../fakes/openai-server.js';
import { useApprovalTerminal } from './approval-terminal.js';

const terminal = useApprovalTerminal();
const { cli, waitingRestart } = terminal;

describe('opsbot approve and opsbot deny', () => {
  it('exit 1 when refused or too late, 0 when the decision is made', async () => {
    const { approvalId } = await waitingRestart();
    const own = await cli(['approve', approvalId, '--as', 'olive']);
    expect(own.out).toMatch(/someone else has to approve/);
    expect(own.code).toBe(1);
    const viewer = await cli(['deny', approvalId, 'not now', '--as', 'vera']);
    expect(viewer.out).toMatch(/only someone with the admin role/);
    expect(viewer.code).toBe(1);
    terminal.fake.reply(text('Left it alone.'));
    const denied = await cli(['deny', approvalId, 'peak traffic', '--as', 'bob']);
    expect(denied.out).toMatch(/Denied by Bob/);
    expect(denied.code).toBe(0);
    const late = await cli(['approve', approvalId, '--as', 'bob']);
    expect(late.out).toMatch(/Already denied by Bob/);
    expect(late.code).toBe(1);
    const unknown = await cli(['approve', 'apv_nothing_run_0000000000000000', '--as', 'bob']);
    expect(unknown.code).toBe(1);
  });

  it('exit 1 in interactive mode too when the last command was a refused decision', async () => {
    const { approvalId } = await waitingRestart();
    const own = await cli(['--as', 'olive'], `approve ${approvalId}\n`);
    expect(own.out).toMatch(/someone else has to approve/);
    expect(own.code).toBe(1);
  });

  it('prints on the card the exact command with its argument filled in, and the impact', async () => {
    const { asked } = await waitingRestart();
    expect(asked.out).toContain('will run:  echo restarting api');
    expect(asked.out).toContain('impact:    restarts the api; about 20 s of 502s');
  });
});
