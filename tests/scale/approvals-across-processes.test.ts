// Approvals and danger actions when processes come and go: a click while no worker runs is kept and the run
// continues once one starts; a worker killed during a danger action leaves it outcome_unknown, told, run once.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RecordedRequest, text, toolCalls } from '../fakes/openai-server.js';
import { blockActions, buttonsOf } from '../fakes/slack/slack-payload-builders.js';
import { FORM_CONTENT_TYPE, formBody, postSigned } from '../fakes/slack/slack-signing.js';
import { CHANNEL, type ScaleRig, SIGNING_SECRET, startScaleRig, waitFor } from './scale-rig.js';

const SETTINGS = [
  'permissions:',
  '  default_role: viewer',
  '  roles:',
  '    operator: { tools: ["*"], risks: [read, write, danger] }',
  '    admin: { tools: ["*"], risks: [read, write, danger], approve: ["*"] }',
  '  identities:',
  "    'slack:UALICE': { roles: [operator], display_name: Alice }",
  "    'slack:UBOB': { roles: [admin], display_name: Bob }",
  '  channels:',
  "    '*': { risks: [read, write, danger] }",
  'tools:',
  '  allowed_executables: [{dir}/deploy.sh]',
  '  commands:',
  '    restart_service:',
  '      description: Restart a service.',
  "      argv: ['{dir}/deploy.sh', '{service}']",
  '      risk: danger',
  '      parameters:',
  '        service: { description: The service., enum: [api, worker] }',
  '',
].join('\n');

let rig: ScaleRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** The model asks to restart the api, then says what came back. */
function restartingModel(request: RecordedRequest) {
  const messages = request.body.messages ?? [];
  if (!messages.some((message) => message.role === 'tool'))
    return toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], {
      content: 'It is stuck.',
    });
  return text('Restart attempted.');
}

/** A command that notes each start in a file, then takes `seconds` to finish. */
function writeDeployScript(dir: string, seconds: number): string {
  const log = join(dir, 'invocations.log');
  writeFileSync(
    join(dir, 'deploy.sh'),
    `#!/bin/sh\necho "$1" >> '${log}'\nsleep ${seconds}\necho restarted "$1"\n`,
  );
  chmodSync(join(dir, 'deploy.sh'), 0o755);
  return log;
}

const invocations = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

async function approve(current: ScaleRig, threadTs: string): Promise<void> {
  const card = current.slack
    .thread(CHANNEL, threadTs)
    .find((message) => buttonsOf(message).some((button) => button.text.text === 'Approve'));
  if (!card) throw new Error('no approval card');
  const button = buttonsOf(card).find((candidate) => candidate.text.text === 'Approve')!;
  const payload = blockActions({
    user: 'UBOB',
    message: card,
    button,
    channelName: 'ops',
    triggerId: 'trigger-approve',
    actionTs: `${Math.floor(Date.now() / 1000)}.000001`,
    responseUrl: current.slack.responseUrl('approve'),
  });
  const delivery = await postSigned(
    `${current.gatewayUrl}/slack/events`,
    formBody({ payload: JSON.stringify(payload) }),
    { secret: SIGNING_SECRET, contentType: FORM_CONTENT_TYPE },
  );
  expect(delivery.status).toBe(200);
}

const threadText = (current: ScaleRig, ts: string) =>
  current.slack
    .thread(CHANNEL, ts)
    .map((message) => message.text)
    .join('\n');

describe('approvals across processes', () => {
  it('keeps a click made while no worker runs, and the run goes on once a worker starts', async () => {
    rig = await startScaleRig(SETTINGS);
    const log = writeDeployScript(rig.dir, 0);
    rig.fake.respond(restartingModel);
    await rig.start('gateway', 'gateway');
    const worker = await rig.start('worker-1', 'worker');
    const ts = await rig.mention('restart the api', { user: 'UALICE' });
    const current = rig;
    await waitFor(
      () => /Approval needed|approval/i.test(threadText(current, ts)),
      30_000,
      () => threadText(current, ts),
    );
    worker.child.kill('SIGTERM');
    await new Promise((resolve) => worker.child.once('exit', resolve));

    await approve(rig, ts);
    await waitFor(
      () => /^Approved/m.test(threadText(current, ts)),
      30_000,
      () => threadText(current, ts),
    );
    expect(invocations(log)).toEqual([]);

    await rig.start('worker-2', 'worker');
    await waitFor(
      () => threadText(current, ts).includes('Restart attempted.'),
      30_000,
      () => threadText(current, ts),
    );
    expect(invocations(log)).toEqual(['api']);
  }, 120_000);

  it('marks a danger action whose worker was killed outcome_unknown, tells the thread, and never runs it again', async () => {
    rig = await startScaleRig(SETTINGS);
    const log = writeDeployScript(rig.dir, 5);
    rig.fake.respond(restartingModel);
    await rig.start('gateway', 'gateway');
    const doomed = await rig.start('worker-1', 'worker');
    const ts = await rig.mention('restart the api', { user: 'UALICE' });
    const current = rig;
    await waitFor(
      () => /approval/i.test(threadText(current, ts)),
      30_000,
      () => threadText(current, ts),
    );
    await approve(rig, ts);
    await waitFor(
      () => invocations(log).length === 1,
      30_000,
      () => threadText(current, ts),
    );
    doomed.child.kill('SIGKILL');
    await rig.start('worker-2', 'worker');
    await waitFor(
      () => /outcome unknown|may or may not have/i.test(threadText(current, ts)),
      60_000,
      () => threadText(current, ts),
    );
    // Give the new worker time to do anything it would wrongly do: the action is never started again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(invocations(log)).toEqual(['api']);
  }, 150_000);
});
