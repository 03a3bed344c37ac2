// Attack: every credential shape the Redactor knows, as rows of input and the exact masked output, checked on
// its own, in a log file read by log_search, in a configured command's output and in an HTTP body.
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED as R, Redactor } from '../../agent/redaction.js';
import { createHttpCheckTool } from '../../tools/http-check.js';
import { createLogSearchTool } from '../../tools/log-search.js';
import { createNetworkGuard } from '../../tools/network-guard.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { commandTool } from '../tools/helpers/command-settings.js';
import { makeTempDir, removeTempDirs } from '../tools/helpers/temp-dir.js';
import { callTool, dataOf, testContext } from '../tools/helpers/tool-context.js';

const base64 = (text: string) => Buffer.from(text).toString('base64');
const PEM_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const PEM_CERTIFICATE_START = base64(
  '-----BEGIN CERTIFICATE-----\nMIIBkTCB+wIJAKHBfpegPjMCMA0GCSqGSIb3DQEBCwUA\n',
);
const DOCKER_CONFIG = base64(
  JSON.stringify({ auths: { 'registry.example.com': { auth: base64('ci:Zx9-p4ss') } } }),
);

type Row = [name: string, input: string, expected: string];

/** Shapes masked before issue 27; fake values with the real shapes, none valid anywhere. */
const KNOWN: Row[] = [
  ['Slack bot token', 'token xoxb-2412345678901-2412345678902-Zq8LmN4pR7sT1vW3', `token ${R}`],
  ['Slack user token', 'using xoxp-1234567890-0987654321-abcdefABCDEF', `using ${R}`],
  ['Slack refresh token', 'got xoxe.xoxp-1-Mi0yLTEyMzQ1Njc4OTAtMTIz', `got ${R}`],
  ['Slack app token', 'app xapp-1-A0123456789-1234567890123-abcdef0123', `app ${R}`],
  [
    'Slack webhook',
    'post https://hooks.slack.com/services/T0123ABCD/B0456EFGH/AbCdEfGhIjKlMnOpQrStUvWx',
    `post https://hooks.slack.com/services/${R}`,
  ],
  ['OpenAI key', 'key sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34', `key ${R}`],
  ['Stripe live key', '(sk_live_51H8xYzAbCdEfGhIjKlMnOpQr0123456789)', `(${R})`],
  ['Stripe restricted key', 'rk_test_51H8xYzAbCdEfGhIjKlMnOpQr01', R],
  ['Google API key', 'maps AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q ok', `maps ${R} ok`],
  ['GitLab token', 'glpat-Ab12Cd34Ef56Gh78Ij90', R],
  ['npm token', 'npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', R],
  ['GitHub token', 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', R],
  ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv', R],
  [
    'Discord bot token',
    'bot MTE0NTY3ODkwMTIzNDU2Nzg5MA.GabcDE.abcdefghijklmnopqrstuvwxyz0123456',
    `bot ${R}`,
  ],
  [
    'JWT',
    'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    `jwt ${R}`,
  ],
  ['AWS access key id', 'id AKIAIOSFODNN7EXAMPLE', `id ${R}`],
  ['AWS secret beside its id', 'AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMIxK7MDENGxbPxRfiCYEXAMPLEKEY', `${R} ${R}`],
  ['Authorization Bearer', 'Authorization: Bearer abc.def', `Authorization: Bearer ${R}`],
  ['Authorization Basic', 'authorization: Basic dXNlcjpwYXNz', `authorization: Basic ${R}`],
  ['bare bearer', 'curl with bearer Zx9abc123def456', `curl with bearer ${R}`],
  ['URL password', 'postgres://app:Tr0ub4dor@db:5432/app', `postgres://app:${R}@db:5432/app`],
  ['password=', 'password=hunter2', `password=${R}`],
  ['DB_PASS=', 'DB_PASS=hunter2', `DB_PASS=${R}`],
  ['quoted env value', 'export MYSQL_ROOT_PASSWORD="correct horse"', `export MYSQL_ROOT_PASSWORD="${R}"`],
  ['secret =', 'webhook_secret = abc123', `webhook_secret = ${R}`],
  ['YAML token', '  ci_job_token: glcbt-xyz', `  ci_job_token: ${R}`],
  ['_KEY=', 'SIGNING_KEY=0123abcd', `SIGNING_KEY=${R}`],
  ['JSON value', '{"REDIS_PASS": "s3cret", "port": 6379}', `{"REDIS_PASS": "${R}", "port": 6379}`],
  ['single-quoted value', "smtp_pass: 'p w'", `smtp_pass: '${R}'`],
  ['api_key', 'api_key=Zx81', `api_key=${R}`],
  ['escaped JSON', '{\\"password\\":\\"x1\\"}', `{\\"password\\":\\"${R}\\"}`],
  ['private key block', `a\n${PEM_KEY.trimEnd()}\nb`, `a\n${R}\nb`],
];

/** Shapes that passed unmasked until issue 27, item 4. */
const NEW: Row[] = [
  ['Kubernetes tls.key (base64 PEM)', `  tls.key: ${base64(PEM_KEY)}`, `  tls.key: ${R}`],
  ['base64 of a PEM key, bare', `blob ${base64(PEM_KEY)} end`, `blob ${R} end`],
  ['Kubernetes .dockerconfigjson', `  .dockerconfigjson: ${DOCKER_CONFIG}`, `  .dockerconfigjson: ${R}`],
  ['base64 docker config, bare', `value ${DOCKER_CONFIG}`, `value ${R}`],
  [
    'docker config.json auth',
    '{"auths":{"ghcr.io":{"auth":"Y2k6WnhwNHNz"}}}',
    `{"auths":{"ghcr.io":{"auth":"${R}"}}}`,
  ],
  [
    'Azure AccountKey',
    'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4+/Zm9vYmFy==;EndpointSuffix=core.windows.net',
    `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${R};EndpointSuffix=core.windows.net`,
  ],
  [
    'Azure SAS sig',
    'https://acme.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-01-01&sp=r&sig=Ab12%2BCd34%2FEf56%3D',
    `https://acme.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-01-01&sp=r&sig=${R}`,
  ],
  [
    'S3 presigned URL',
    'https://b.s3.amazonaws.com/k?X-Amz-Date=20260101T000000Z&X-Amz-Signature=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b',
    `https://b.s3.amazonaws.com/k?X-Amz-Date=20260101T000000Z&X-Amz-Signature=${R}`,
  ],
  [
    'Discord webhook',
    'hook https://discord.com/api/webhooks/1234567890123456789/AbCdEf-GhIjKl_MnOpQrStUvWxYz0123456789',
    `hook https://discord.com/api/webhooks/${R}`,
  ],
  [
    'Discord webhook (discordapp, versioned)',
    'https://canary.discordapp.com/api/v10/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUv',
    `https://canary.discordapp.com/api/v10/webhooks/${R}`,
  ],
  [
    'SendGrid key',
    'SENDGRID SG.Ab12Cd34Ef56Gh78Ij90Kl.Mn12Op34Qr56St78Uv90Wx12Yz34Ab56Cd78Ef90Gh12Ij3',
    `SENDGRID ${R}`,
  ],
  ['Vault token', 'vault login hvs.CAESIJAbCdEfGhIjKlMnOpQrStUvWxYz0123', `vault login ${R}`],
  ['Cookie header', 'Cookie: session=Zx9abc; csrftoken=q1w2e3', `Cookie: ${R}`],
  ['Set-Cookie header', 'set-cookie: sid=Zx9abc; Path=/; HttpOnly', `set-cookie: ${R}`],
  ['JSON cookie', '{"cookie":"sid=Zx9abc"}', `{"cookie":"${R}"}`],
  ['mysql -p', 'mysql -uroot -phunter2 -h db app', `mysql -uroot -p${R} -h db app`],
  ['mysqldump -p', 'mysqldump -p"s3cr et" app', `mysqldump -p"${R}" app`],
  ['?pass=', 'GET /login?user=bob&pass=hunter2 200', `GET /login?user=bob&pass=${R} 200`],
  ['passphrase=', 'gpg passphrase=correct-horse-42', `gpg passphrase=${R}`],
  ['bare AWS secret key', 'aws creds k3Jx9QmZ7vT2pL8wR4nY6bH1cF5dG0sA9eU3i/7q', `aws creds ${R}`],
  ['bare AWS secret key, unlabelled', 'k3Jx9QmZ7vT2pL8wR4nY6bH1cF5dG0sA9eU3i+7q', R],
  [
    "bare AWS secret key, AWS's documented example (one digit)",
    'key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    `key ${R}`,
  ],
];

/** Things that look a little like the new shapes and must stay as they are. */
const KEPT: Row[] = [
  ['a base64 certificate', `tls.crt: ${PEM_CERTIFICATE_START}`, `tls.crt: ${PEM_CERTIFICATE_START}`],
  [
    'a git SHA-1',
    'commit da39a3ee5e6b4b0d3255bfef95601890afd80709',
    'commit da39a3ee5e6b4b0d3255bfef95601890afd80709',
  ],
  [
    'a 40-character path',
    'src/Components/Button2/index/Main/Footer',
    'src/Components/Button2/index/Main/Footer',
  ],
  ['mysql without a password', 'mysql -u root -p app', 'mysql -u root -p app'],
  ['a query without secrets', 'GET /search?q=cookies&page=2', 'GET /search?q=cookies&page=2'],
  ['bypass=', 'bypass=true monkey=george keyboard: us', 'bypass=true monkey=george keyboard: us'],
];

const redactor = new Redactor();
const ONE_LINE = [...KNOWN, ...NEW].filter(([, input]) => !input.includes('\n'));

describe('attack: the secret corpus, row by row', () => {
  for (const [name, input, expected] of [...KNOWN, ...NEW, ...KEPT]) {
    it(`attack: ${name}`, () => {
      expect(redactor.redact(input)).toBe(expected);
    });
  }
});

describe('attack: the secret corpus through the real tool paths', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir();
    await mkdir(join(dir, 'logs'));
    await writeFile(join(dir, 'logs', 'corpus.log'), `${ONE_LINE.map(([, input]) => input).join('\n')}\n`);
  });
  afterAll(removeTempDirs);

  it('attack: log_search over a file of every shape returns each line masked', async () => {
    const tool = createLogSearchTool({ roots: [join(dir, 'logs')] });
    const viewer = testContext({
      principal: { platform: 'cli', userId: 'v', displayName: 'Viewer', roles: ['viewer'], groups: [] },
    });
    const result = await callTool(tool, { glob: '*.log', pattern: '.', regex: true, max_lines: 500 }, viewer);
    const shown = redactor.redactValue(result);
    const texts = (dataOf(shown).matches as { text: string }[]).map((match) => match.text).sort();
    expect(texts).toEqual(ONE_LINE.map(([, , expected]) => expected).sort());
  });

  it("attack: a configured command's output of every shape is masked line by line", async () => {
    const tool = await commandTool(
      'show_corpus',
      { description: 'Prints the corpus, for testing.', argv: ['/usr/bin/cat', 'logs/corpus.log'] },
      { allowed: ['/usr/bin/cat'], cwd: dir },
    );
    const shown = redactor.redactValue(await callTool(tool, {}));
    expect(dataOf(shown).stdout).toBe(`${ONE_LINE.map(([, , expected]) => expected).join('\n')}\n`);
  });

  it("attack: http_check's body excerpt of each shape comes back masked", async () => {
    let body = '';
    const server = createServer((_request, response) => response.end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const tool = createHttpCheckTool({ guard: createNetworkGuard(ToolSettingsSchema.parse({}).network) });
    const compact = (text: string) => text.replace(/\s+/g, ' ').trim();
    try {
      for (const [name, input, expected] of ONE_LINE) {
        body = input;
        const shown = redactor.redactValue(await callTool(tool, { url }));
        expect(dataOf(shown).body_excerpt, name).toBe(compact(expected));
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
