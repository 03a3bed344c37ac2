// Attack: a `url:` MCP server echoes back the credentials opsbot sends it in its headers (a debugging "whoami", an
// error that quotes the request). The `${VAR}` values are secrets of no shape a rule knows, so the redactor is
// given them exactly: none may reach the model, the chat, the run record, the traces or the store (the audit),
// bare or JSON-escaped; a header value that is an ordinary setting stays readable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../agent/redaction.js';
import { type HttpMcpServer, startHttpMcpServer } from '../fakes/mcp/http-mcp-server.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { type SinkRig, startSinkRig } from './helpers/sink-rig.js';

/** `${NAME}` as the settings write it: their own syntax, not a template literal. */
const ref = (name: string) => `$\{${name}}`;

/** Random text with no prefix, no "Bearer"-looking neighbour once echoed bare: no shape rule can see it. */
const BEARER = 'k7QzP2vX9mWcR4tLb8sYd1nHf6JgE3uA';
/** Under a header whose name says nothing, with a quote and a backslash, so its JSON-escaped form differs. */
const ORG_KEY = 'Zr4"Wq8\\Lp0nTy6Mv2Kx';
/** An ordinary setting in a header: a single lower-case word, kept readable. */
const TEAM = 'payments';

const VARIABLES = {
  OPSBOT_TEST_MCP_BEARER: BEARER,
  OPSBOT_TEST_MCP_ORG: ORG_KEY,
  OPSBOT_TEST_MCP_TEAM: TEAM,
};

/** Each secret as it could show: bare, JSON-escaped once (in a JSON text), twice (that text inside JSON). */
function formsOf(secret: string): string[] {
  const once = JSON.stringify(secret).slice(1, -1);
  return [secret, once, JSON.stringify(once).slice(1, -1)];
}

function expectHidden(shown: string, where: string): void {
  for (const secret of [BEARER, ORG_KEY]) {
    for (const form of formsOf(secret)) expect(shown.includes(form), `${where} shows ${form}`).toBe(false);
  }
}

describe('attack: a url MCP server that echoes its header secrets, in every sink', () => {
  let model: FakeOpenAIServer;
  let server: HttpMcpServer;
  let rig: SinkRig;

  beforeAll(async () => {
    // The tools read `${VAR}` from opsbot's own environment, as the redactor does.
    Object.assign(process.env, VARIABLES);
    model = await startFakeOpenAIServer();
    server = await startHttpMcpServer();
    rig = await startSinkRig(model, 'nothing here\n', {
      moreTools: ['  network: { allow: [127.0.0.1] }'],
      moreSettings: [
        'mcp:',
        '  servers:',
        '    echo:',
        `      url: ${server.url}`,
        '      headers:',
        `        Authorization: "Bearer ${ref('OPSBOT_TEST_MCP_BEARER')}"`,
        `        X-Org: "${ref('OPSBOT_TEST_MCP_ORG')}"`,
        `        X-Team: "${ref('OPSBOT_TEST_MCP_TEAM')}"`,
      ],
    });
    model.reply(toolCalls([{ name: 'echo__whoami', arguments: { who: 'alice' } }]), text('You are alice.'));
    await rig.say('alice', '@opsbot who am I on the echo server?');
    await rig.settled();
    // The same tool by a typed command: its result is posted to the chat as it is, without the model.
    await rig.say('alice', '@opsbot echo__whoami who=bob');
    await rig.settled();
  }, 30_000);

  afterAll(async () => {
    await rig?.stop();
    await server?.close();
    await model?.close();
    for (const name of Object.keys(VARIABLES)) delete process.env[name];
  });

  it('the server really received and echoed them (the attack took place)', () => {
    expect(server.calls()).toEqual(['alice', 'bob']);
    expect(server.connections()).toBeGreaterThan(0);
  });

  it('attack: the tool result the model gets has the marker where each secret was, and the team kept', () => {
    const toolMessage = JSON.stringify(model.requests[1]?.body.messages?.at(-1));
    expect(toolMessage).toContain(`hello alice, signed in as ${REDACTED}`);
    expect(toolMessage).toContain(TEAM);
    expectHidden(JSON.stringify(model.requests.map((request) => request.body)), 'the model requests');
  });

  it('attack: no secret reaches the chat, the SSE stream, the run records, the traces or the store', async () => {
    const chat = await (await fetch(`${rig.url}/api/channels/ops/messages`)).text();
    expect(chat).toContain('hello bob');
    expectHidden(chat, 'the chat');
    expectHidden(JSON.stringify(rig.live.events), 'the SSE stream');
    const audit = await rig.opsbot.audit.list();
    expect(JSON.stringify(audit)).toContain('echo__whoami');
    expectHidden(JSON.stringify(audit), 'the audit log');
    for (const entry of audit)
      if (entry.runId)
        expectHidden(JSON.stringify(await rig.opsbot.kernel.get(entry.runId)), 'the run record');
    expect(rig.filesOnDisk().traces).toContain('echo__whoami');
    expectHidden(rig.filesOnDisk().traces, 'the trace files');
    expectHidden(rig.filesOnDisk().store, 'the store on disk');
    expectHidden(rig.logger.lines.join('\n'), 'the logs');
  });
});
