// Attack: secrets in a tool's output, in the model's own words and arguments, and in a user's message, followed
// through every sink of the real bot (playground store and SSE stream, the model's next request, the trace file,
// the audit log in the store, the logger). None of the raw secrets may appear in any of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { type SinkRig, startSinkRig } from './helpers/sink-rig.js';

const PEM_BODY = [
  'MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB',
  'aFDrBz9vFqU4yV8E7n3wYtPtSx3qHcWvbYNeKLZkKxWL0Pbq3z8N5kDbH7q2J1x9',
  'c9Gz0cRkjT8v3mL6wQyXh2pNs4Ue1fB7aKdZoIr5VtM8jH3gW9qLxYcE6uRnS2Tb',
];
/** The raw secrets, each a distinct value that must never be seen again. */
const SECRETS = {
  slack: 'xoxb-2412345678901-2412345678902-Zq8LmN4pR7sT1vW3yB6dF9hK',
  awsKeyId: 'AKIA2E0A8F3B244C9D86',
  awsSecret: 'k3Jx9QmZ7vT2pL8wR4nY6bH1cF5dG0sA9eU3iO7q',
  gitlab: 'glpat-Xy7zQ2mN9pR4sT6vW8aB',
  dbPassword: 'Tr0ub4dor-and-3-horses',
  userPassword: 'hunter2-in-the-task',
};

const APP_ENV = [
  `SLACK_BOT_TOKEN=${SECRETS.slack}`,
  `aws_access_key_id = ${SECRETS.awsKeyId}`,
  `aws_secret_access_key = ${SECRETS.awsSecret}`,
  `gitlab: ${SECRETS.gitlab}`,
  `DB_PASSWORD=${SECRETS.dbPassword}`,
  '-----BEGIN RSA PRIVATE KEY-----',
  ...PEM_BODY,
  '-----END RSA PRIVATE KEY-----',
  '',
].join('\n');

const RAW = [...Object.values(SECRETS), ...PEM_BODY];
/** What opsbot itself wrote: the person's own message stays as they typed it, as it does in Slack. */
const NOT_THE_USERS_OWN = RAW.filter((secret) => secret !== SECRETS.userPassword);

let model: FakeOpenAIServer;
let rig: SinkRig;

beforeAll(async () => {
  model = await startFakeOpenAIServer();
  rig = await startSinkRig(model, APP_ENV);
  model.reply(
    toolCalls([{ name: 'show_config', arguments: {} }]),
    // The model repeats what it read, in a tool's arguments and in its answer.
    toolCalls([{ name: 'show_config', arguments: { note: `token ${SECRETS.slack}` } }]),
    text(
      `The config holds ${SECRETS.slack}, ${SECRETS.awsKeyId} / ${SECRETS.awsSecret}, ${SECRETS.gitlab} and ` +
        `DB_PASSWORD=${SECRETS.dbPassword}.\n\n${PEM_BODY.join('\n')}`,
    ),
  );
  await rig.say(
    'alice',
    `@opsbot why does login fail with password=${SECRETS.userPassword}? show the config`,
  );
  await rig.settled();
}, 30_000);

afterAll(async () => {
  await rig?.stop();
  await model?.close();
});

function expectNoSecret(sink: string, where: string, secrets = RAW): void {
  for (const secret of secrets) expect(sink.includes(secret), `${where} holds ${secret}`).toBe(false);
}

describe('every sink is redacted', () => {
  it('the run did read the secrets (the tool ran and the model answered)', async () => {
    expect(model.requests.length).toBeGreaterThanOrEqual(3);
    const toolMessage = JSON.stringify(model.requests[1]!.body.messages!.at(-1));
    expect(toolMessage).toContain('SLACK_BOT_TOKEN=');
    expect(toolMessage).toContain('[REDACTED]');
  });

  it('attack: secrets reach the chat messages (the playground store, as a page loads them)', async () => {
    const page = (await (await fetch(`${rig.url}/api/channels/ops/messages`)).json()) as {
      messages: { author: { kind: string } }[];
    };
    const fromBot = JSON.stringify(page.messages.filter((message) => message.author.kind !== 'user'));
    expect(fromBot).toContain('[REDACTED]');
    expectNoSecret(fromBot, "the bot's messages");
    expectNoSecret(JSON.stringify(page), 'the playground page', NOT_THE_USERS_OWN);
  });

  it('attack: secrets reach the playground SSE stream', () => {
    const fromBot = rig.live.events.filter((event) => event.data?.author?.kind !== 'user');
    expect(JSON.stringify(fromBot)).toContain('The config holds');
    expectNoSecret(JSON.stringify(fromBot), 'the SSE stream');
    expectNoSecret(JSON.stringify(rig.live.events), 'the SSE stream', NOT_THE_USERS_OWN);
  });

  it("attack: secrets reach the model's next request (the tool message and the user's task)", () => {
    expectNoSecret(JSON.stringify(model.requests.map((request) => request.body)), 'the model requests');
  });

  it('attack: secrets reach the trace file, the audit log or anything else the store keeps on disk', async () => {
    const audit = JSON.stringify(await rig.opsbot.audit.list());
    expect(audit).toContain('request');
    expectNoSecret(audit, 'the audit log');
    const runs = await Promise.all((await rig.opsbot.audit.list()).map((entry) => entry.runId));
    for (const runId of new Set(runs))
      if (runId) expectNoSecret(JSON.stringify(await rig.opsbot.kernel.get(runId)), 'the run record');
    expect(rig.filesOnDisk().traces).toContain('show_config');
    expectNoSecret(rig.filesOnDisk().traces, 'the trace files');
    expectNoSecret(rig.filesOnDisk().store, 'the store on disk', NOT_THE_USERS_OWN);
  });

  it('attack: secrets reach the logger output', () => {
    expect(rig.logger.lines.length).toBeGreaterThan(0);
    expectNoSecret(rig.logger.lines.join('\n'), 'the logger');
  });
});
