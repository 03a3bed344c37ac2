// Attack: a command that lists credentials under `env:` echoes them (issue 27 item 8). Each value given to the
// child must be hidden in its output, on the command's result and in every sink; settings that are not secrets
// (numbers, paths, single words, short values) stay readable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../agent/redaction.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { commandTool } from '../tools/helpers/command-settings.js';
import { callTool, dataOf } from '../tools/helpers/tool-context.js';
import { type SinkRig, startSinkRig } from './helpers/sink-rig.js';

/** Credentials whose shapes no redaction rule knows, or that sit under a name no rule knows. */
const SECRETS = {
  npmAuth: 'bnBtdXNlcjpucG0tcGFzcy0yMDI2',
  dockerAuthConfig: '{"auths":{"registry.example.com":{"identitytoken":"Zx9-registry-id-77"}}}',
  azureConnection: 'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFy+/YmF6cXV4eno=',
  passedThrough: 'pg-through-opsbot-41',
  wordPassword: 'correcthorsebatterystaple',
};

/** What must stay readable, as `env` prints it. */
const KEPT = [
  'NODE_ENV=production',
  'RETRIES=12345678',
  'CACHE_DIR=/var/cache/app-data',
  'SHORT_ID=ab12cd3',
  'AWS_REGION=us-east-1',
  'DEBUG=true',
];

const ENV_ENTRIES = [
  `NPM_CONFIG__AUTH=${SECRETS.npmAuth}`,
  `DOCKER_AUTH_CONFIG=${SECRETS.dockerAuthConfig}`,
  `AZURE_STORAGE_CONNECTION_STRING=${SECRETS.azureConnection}`,
  'PGPASSWORD',
  `DB_PASSWORD=${SECRETS.wordPassword}`,
  ...KEPT,
];

function expectHidden(shown: string, where: string): void {
  for (const secret of Object.values(SECRETS)) {
    expect(shown.includes(secret), `${where} shows ${secret}`).toBe(false);
  }
}

describe("attack: a command's env: values in its own output", () => {
  it('attack: `env` printing every listed variable shows none of the secret values', async () => {
    const tool = await commandTool(
      'print_env',
      { description: 'Prints its environment, for testing.', argv: ['/usr/bin/env'], env: ENV_ENTRIES },
      { allowed: ['/usr/bin/env'], env: { PATH: process.env.PATH, PGPASSWORD: SECRETS.passedThrough } },
    );
    const stdout = String(dataOf(await callTool(tool, {})).stdout);
    expect(stdout).toContain(`NPM_CONFIG__AUTH=${REDACTED}`);
    expect(stdout).toContain(`PGPASSWORD=${REDACTED}`);
    expect(stdout).toContain(`DB_PASSWORD=${REDACTED}`);
    expectHidden(stdout, 'the raw result');
    for (const line of KEPT) expect(stdout).toContain(line);
  });

  it('attack: a value echoed inside other text, and its JSON-escaped form, are hidden', async () => {
    const tool = await commandTool(
      'echo_env',
      {
        description: 'Echoes a value, for testing.',
        argv: ['/usr/bin/sh', '-c', 'echo "auth is $NPM_CONFIG__AUTH!"; printf \'%s\\n\' "$JSON" >&2'],
        env: [
          `NPM_CONFIG__AUTH=${SECRETS.npmAuth}`,
          `JSON=${JSON.stringify({ DOCKER: SECRETS.dockerAuthConfig })}`,
        ],
      },
      { allowed: ['/usr/bin/sh'] },
    );
    const data = dataOf(await callTool(tool, {}));
    expect(data.stdout).toBe(`auth is ${REDACTED}!\n`);
    expect(String(data.stderr)).not.toContain('identitytoken');
  });
});

describe("attack: a command's env: values, in every sink", () => {
  let model: FakeOpenAIServer;
  let rig: SinkRig;

  beforeAll(async () => {
    model = await startFakeOpenAIServer();
    rig = await startSinkRig(model, 'nothing here\n', {
      moreExecutables: ['/usr/bin/env'],
      moreCommands: [
        '    print_env:',
        '      description: Prints the environment. Use when asked about it. Do not use to change it.',
        '      argv: [/usr/bin/env]',
        `      env: ${JSON.stringify(ENV_ENTRIES.filter((entry) => entry !== 'PGPASSWORD'))}`,
      ],
    });
    model.reply(toolCalls([{ name: 'print_env', arguments: {} }]), text('Printed the environment.'));
    await rig.say('alice', '@opsbot print the environment');
    await rig.settled();
  }, 30_000);

  afterAll(async () => {
    await rig?.stop();
    await model?.close();
  });

  it('attack: no value reaches the model, the chat, the run record, the traces or the store', async () => {
    const toolMessage = JSON.stringify(model.requests[1]?.body.messages?.at(-1));
    expect(toolMessage).toContain('NODE_ENV=production');
    expectHidden(JSON.stringify(model.requests.map((request) => request.body)), 'the model requests');
    expectHidden(await (await fetch(`${rig.url}/api/channels/ops/messages`)).text(), 'the chat');
    expectHidden(JSON.stringify(rig.live.events), 'the SSE stream');
    for (const entry of await rig.opsbot.audit.list())
      if (entry.runId)
        expectHidden(JSON.stringify(await rig.opsbot.kernel.get(entry.runId)), 'the run record');
    expect(rig.filesOnDisk().traces).toContain('print_env');
    expectHidden(rig.filesOnDisk().traces, 'the trace files');
    expectHidden(rig.filesOnDisk().store, 'the store on disk');
  });
});
