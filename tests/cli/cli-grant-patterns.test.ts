// `opsbot approve --for 1h --pattern <name>`: a grant under one of a configured command's grant_patterns, which
// lets the call's arguments vary as the pattern says; a pattern the card does not offer is refused, and --pattern
// without --for is a usage error.
import { describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { useApprovalTerminal } from './approval-terminal.js';

/** Beside restart_service (no patterns), a restart_app whose approver may cover both app services at once. */
const RESTART_APP = [
  '    restart_app:',
  '      description: Restart one of the app services. Use when one is stuck. Do not use to deploy.',
  '      argv: [echo, restarting app, "{service}"]',
  '      risk: danger',
  '      parameters:',
  '        service: { description: Which service, enum: [api, worker, db] }',
  '      grant_patterns:',
  '        app-services: { service: [api, worker] }',
  '',
].join('\n');

const terminal = useApprovalTerminal({ moreCommands: RESTART_APP });
const { cli } = terminal;

/** Olive asks for restart_app; `answer` is the model's closing text, for a call that runs without waiting. */
async function askRestartApp(service: string, answer?: string) {
  terminal.fake.reply(toolCalls([{ name: 'restart_app', arguments: { service } }]));
  if (answer) terminal.fake.reply(text(answer));
  const asked = await cli(['run', `restart the ${service}`, '--as', 'olive']);
  return { asked, approvalId: /opsbot approve (apv_[\w-]+)/.exec(asked.out)?.[1] };
}

/** Olive asks for restart_app, and it waits for an approver (exit 3): its approval id. */
async function waitingRestartApp(service: string): Promise<string> {
  const { asked, approvalId } = await askRestartApp(service);
  expect(asked.code, asked.out).toBe(3);
  if (!approvalId) throw new Error(`no approval id in:\n${asked.out}`);
  return approvalId;
}

describe('opsbot approve --for --pattern', () => {
  it("grants under the pattern: the other service's call runs without a card, one outside it still waits", async () => {
    const approvalId = await waitingRestartApp('api');
    terminal.fake.reply(text('Restarted the api.'));
    const approved = await cli([
      'approve',
      approvalId,
      '--for',
      '1h',
      '--pattern',
      'app-services',
      '--as',
      'bob',
    ]);
    expect(approved.out).toMatch(
      /Granted until \d\d:\d\d UTC \(grt_[0-9a-f]{16}\): Olive's restart_app with these arguments, but any service in api, worker, in cli:terminal runs without a new approval\./,
    );
    expect(approved.code).toBe(0);

    const listed = await cli(['grants']);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(
      /restart_app\s+\{"service":"api"\} but any service in api, worker\s+Olive\s+cli:terminal\s+Bob\s+\d{4}-/,
    );

    const worker = await askRestartApp('worker', 'Restarted the worker.');
    expect(worker.asked.out).not.toContain('opsbot approve');
    expect(worker.asked.out).toMatch(
      /restart_app: run under Bob's grant \(until \d\d:\d\d UTC\), without a new approval\./,
    );
    // The command really ran, for the worker.
    expect(worker.asked.out).toContain('"stdout":"restarting app worker\\n"');
    expect(worker.asked.out).toContain('Restarted the worker.');
    expect(worker.asked.code).toBe(0);

    // db is not one of the pattern's values: it waits for an approver.
    await waitingRestartApp('db');
  });

  it('refuses a pattern the card does not offer with exit 1, naming what it offers, and approves nothing', async () => {
    const approvalId = await waitingRestartApp('api');
    const refused = await cli(['approve', approvalId, '--for', '1h', '--pattern', 'nope', '--as', 'bob']);
    expect(refused.out).toContain(
      'restart_app offers no pattern "nope" for this call (it offers app-services); nothing was approved.',
    );
    expect(refused.code).toBe(1);
    expect((await cli(['grants'])).out).toContain('No approval grants in force.');
    // The call still waits: approving it once now runs it.
    terminal.fake.reply(text('Restarted the api.'));
    const once = await cli(['approve', approvalId, '--as', 'bob']);
    expect(once.code, once.out).toBe(0);
    expect(once.out).not.toContain('Granted');
  });

  it('is a usage error (exit 2) to give --pattern without --for, and nothing is decided', async () => {
    const approvalId = await waitingRestartApp('api');
    const vague = await cli(['approve', approvalId, '--pattern', 'app-services', '--as', 'bob']);
    expect(vague.out).toContain('--pattern goes with --for');
    expect(vague.code).toBe(2);
    const denied = await cli(['deny', approvalId, '--as', 'bob']);
    expect(denied.code, denied.out).toBe(0);
  });
});
