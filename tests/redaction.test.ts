// Redaction: every credential shape is hidden wherever it appears, and ordinary text is left alone.
import { describe, expect, it } from 'vitest';
import { CallerError } from '../agent/errors.js';
import { REDACTED, Redactor } from '../agent/redaction.js';

// Fake tokens with the real shapes; none of them is valid anywhere.
const TOKENS = {
  slackBot: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  slackUser: 'xoxp-1234567890-1234567890-1234567890-0123456789abcdef0123456789abcdef',
  slackRefresh: 'xoxe-1-My0xLTEyMzQ1Njc4OTAtMTIzNDU2Nzg5MDEyMy0xMjM0NTY3ODkwMTIz',
  slackRotating: 'xoxe.xoxp-1-Mi0yLTEyMzQ1Njc4OTAtMTIzNDU2Nzg5MC0xMjM0NTY3ODkwLTk4NzY1NDMyMTA',
  slackWorkspace: 'xoxa-2-1234567890-abcdef0123456789',
  slackRefreshLegacy: 'xoxr-1234567890-abcdef0123456789',
  slackApp: 'xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd',
  openaiLegacy: 'sk-abcdefghijklmnopqrstT3BlbkFJabcdefghijklmnopqrst',
  openaiProject: 'sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGHijklMNOPqrstUVWXyz0123456789',
  openaiService: 'sk-svcacct-AbCdEf0123456789GhIjKlMnOpQrStUvWxYz',
  discord: 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789AB',
  discordLong: 'NzkyNzE1NDU0MTk2MDg4ODQy.X-hvzA.Ovy4MCQywSkoMRRclStW4xAYK7I',
  awsKey: 'AKIAIOSFODNN7EXAMPLE',
  awsSession: 'ASIAY34FZKBOKMUTVV7A',
  github: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
};

const redactor = new Redactor();

describe('Redactor: token shapes without a nearby keyword', () => {
  for (const [name, token] of Object.entries(TOKENS)) {
    it(`hides a bare ${name} token`, () => {
      expect(redactor.redact(token)).toBe(REDACTED);
      expect(redactor.redact(`deploy started with ${token} and more`)).toBe(
        `deploy started with ${REDACTED} and more`,
      );
    });
  }

  it('hides a token inside JSON output', () => {
    const json = JSON.stringify({ config: { slack: TOKENS.slackBot, ok: true }, keys: [TOKENS.awsKey] });
    const redacted = redactor.redact(json);
    expect(redacted).not.toContain(TOKENS.slackBot);
    expect(redacted).not.toContain(TOKENS.awsKey);
    expect(JSON.parse(redacted)).toEqual({ config: { slack: REDACTED, ok: true }, keys: [REDACTED] });
  });

  it('hides several tokens on one log line', () => {
    const line = `2026-01-01T00:00:00Z WARN env dump: ${TOKENS.openaiProject},${TOKENS.discord} ${TOKENS.awsKey};${TOKENS.slackApp}`;
    expect(redactor.redact(line)).toBe(
      `2026-01-01T00:00:00Z WARN env dump: ${REDACTED},${REDACTED} ${REDACTED};${REDACTED}`,
    );
  });

  it('hides a private key block', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc==\n-----END RSA PRIVATE KEY-----';
    expect(redactor.redact(`key:\n${pem}\ndone`)).toBe(`key:\n${REDACTED}\ndone`);
  });
});

describe('Redactor: keyed secrets keep the key', () => {
  const cases: Array<[string, string]> = [
    ['Authorization: Bearer xyz', `Authorization: Bearer ${REDACTED}`],
    [
      'curl -H "authorization: bearer abc.def-123" https://x',
      `curl -H "authorization: bearer ${REDACTED}" https://x`,
    ],
    ['Authorization: Basic dXNlcjpwYXNz', `Authorization: Basic ${REDACTED}`],
    ['sent bearer 9f8e7d6c5b4a3f2e1d0c', `sent bearer ${REDACTED}`],
    ['password=hunter2 user=bob', `password=${REDACTED} user=bob`],
    [
      'passwd=abc pwd=s3cret secret=xyz token=tok_123',
      `passwd=${REDACTED} pwd=${REDACTED} secret=${REDACTED} token=${REDACTED}`,
    ],
    ['DB_PASSWORD=hunter2', `DB_PASSWORD=${REDACTED}`],
    ['SLACK_SIGNING_SECRET=8f14e45fceea167a5a36dedd4bea2543', `SLACK_SIGNING_SECRET=${REDACTED}`],
    ['AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', `AWS_SECRET_ACCESS_KEY=${REDACTED}`],
    ['GET /v1?access_token=abcd1234&page=2', `GET /v1?access_token=${REDACTED}&page=2`],
    ['password: hunter2', `password: ${REDACTED}`],
    ['{"password": "correct horse battery", "user": "bob"}', `{"password": "${REDACTED}", "user": "bob"}`],
    ['{"api_key":"k-1\\"quoted"}', `{"api_key":"${REDACTED}"}`],
    ["{'password': 'abc def', 'user': 'x'}", `{'password': '${REDACTED}', 'user': 'x'}`],
    ['{\\"password\\":\\"a b\\",\\"x\\":1}', `{\\"password\\":\\"${REDACTED}\\",\\"x\\":1}`],
    [
      'postgres://admin:p%40ss@db.example.com:5432/app',
      `postgres://admin:${REDACTED}@db.example.com:5432/app`,
    ],
    ['redis://:hunter2@cache:6379/0', `redis://:${REDACTED}@cache:6379/0`],
  ];
  for (const [input, expected] of cases) {
    it(`redacts ${JSON.stringify(input)}`, () => {
      expect(redactor.redact(input)).toBe(expected);
    });
  }

  it('keeps JSON valid when a quoted value is redacted', () => {
    const json = JSON.stringify({ user: 'bob', password: 'p@ss "w0rd"', nested: { token: 'abc' } });
    expect(JSON.parse(redactor.redact(json))).toEqual({
      user: 'bob',
      password: REDACTED,
      nested: { token: REDACTED },
    });
  });

  it('is idempotent', () => {
    const once = redactor.redact(`password=x ${TOKENS.slackBot} Authorization: Bearer abc`);
    expect(redactor.redact(once)).toBe(once);
  });
});

describe('Redactor: near misses are left alone', () => {
  const untouched = [
    'sk-ip the task-list on the desk-lamp',
    'install sk-learn-is-a-long-hyphenated-package-name for the risk-assessment',
    'xoxb- is the prefix of a Slack bot token',
    'AKIAshort and AKIAIOSFODNN7EXAMPLEX1 are not access key ids',
    'the bearer of bad news; Bearer authentication is configured',
    'max_tokens=100 tokens=5 token_type=bearer passwordless=true',
    '{"promptTokens": 12, "completionTokens": 4}',
    'https://example.com:8080/path?page=2 and user@example.com',
    'empty values: password=\npassword: ""',
    'run_01HZX3K5Q2 finished in 1.2s, sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  ];
  for (const text of untouched) {
    it(`leaves ${JSON.stringify(text)}`, () => {
      expect(redactor.redact(text)).toBe(text);
    });
  }
});

describe('Redactor: extra patterns from settings', () => {
  it('redacts the whole match of each extra pattern, alongside the built-in shapes', () => {
    const custom = new Redactor(['acme_[a-f0-9]{12}', 'INTERNAL-\\d{4}-[A-Z]{2}']);
    expect(custom.redact(`k=acme_0123456789ab id INTERNAL-2026-XY ${TOKENS.awsKey}`)).toBe(
      `k=${REDACTED} id ${REDACTED} ${REDACTED}`,
    );
  });

  it('ignores empty matches instead of spraying markers', () => {
    expect(new Redactor(['z*']).redact('abc')).toBe('abc');
  });

  it('throws a clear error naming an invalid pattern', () => {
    expect(() => new Redactor(['ok', 'broken(['])).toThrow(CallerError);
    expect(() => new Redactor(['ok', 'broken(['])).toThrow(
      /redaction\.patterns\[1\] "broken\(\[" is not a valid/,
    );
  });

  it('refuses a pattern that can backtrack exponentially', () => {
    expect(() => new Redactor(['(a+)+$'])).toThrow(/redaction\.patterns\[0\].*exponential/);
  });
});

describe('Redactor: exact secret values', () => {
  const secret = 'k7QzP2vX9mWcR4tLb8sYd1nHf6JgE3uA';
  const quoted = 'Zr4"Wq8\\Lp0nTy6Mv2Kx';
  const exact = new Redactor([], {
    secretValues: [secret, quoted, 'short12', 'line-one-of-it\nline-two-of-it'],
  });

  it('hides each occurrence of a value no shape matches, inside other text', () => {
    expect(exact.redact(`signed in as ${secret}, again ${secret}.`)).toBe(
      `signed in as ${REDACTED}, again ${REDACTED}.`,
    );
    expect(new Redactor().redact(`signed in as ${secret}`)).toContain(secret);
  });

  it('hides its JSON-escaped form, as it shows inside a JSON text', () => {
    const json = JSON.stringify({ org: quoted });
    expect(json).toContain('Zr4\\"Wq8');
    expect(exact.redact(json)).toBe(`{"org":"${REDACTED}"}`);
  });

  it('leaves values shorter than the minimum alone, so they cannot mask ordinary text', () => {
    expect(exact.redact('short12 stays')).toBe('short12 stays');
  });

  it('hides each long-enough line of a value of several lines', () => {
    expect(exact.redact('kept half: line-two-of-it')).toBe(`kept half: ${REDACTED}`);
  });

  it('hides the values in structured values, in strings and in keys', () => {
    expect(exact.redactValue({ who: [`as ${secret}`], [secret]: 'seen' })).toEqual({
      who: [`as ${REDACTED}`],
      [REDACTED]: 'seen',
    });
  });

  it('hides a value whole before a shape could take part of it', () => {
    const around = `tenant7-${TOKENS.awsKey}-tail`;
    expect(redactor.redact(around)).toBe(`tenant7-${REDACTED}-tail`);
    expect(new Redactor([], { secretValues: [around] }).redact(`x ${around} y`)).toBe(`x ${REDACTED} y`);
  });
});

describe('Redactor.redactValue', () => {
  it('redacts strings deep inside objects and arrays and returns a copy', () => {
    const input = {
      command: `curl -H "Authorization: Bearer abc123def"`,
      env: [{ name: 'SLACK', value: TOKENS.slackBot }],
      count: 3,
      nested: { list: ['fine', `log ${TOKENS.github}`], flag: true, nothing: null },
    };
    const snapshot = structuredClone(input);
    const output = redactor.redactValue(input);
    expect(output).toEqual({
      command: `curl -H "Authorization: Bearer ${REDACTED}"`,
      env: [{ name: 'SLACK', value: REDACTED }],
      count: 3,
      nested: { list: ['fine', `log ${REDACTED}`], flag: true, nothing: null },
    });
    expect(input).toEqual(snapshot);
    expect(output).not.toBe(input);
    expect(output.nested).not.toBe(input.nested);
  });

  it('hides values under secret-looking keys whatever their shape', () => {
    const output = redactor.redactValue({
      password: 'hunter2',
      apiKey: 'plain',
      SLACK_BOT_TOKEN: 'short',
      pin: 1234,
      promptTokens: 12,
      max_tokens: 100,
      token: '',
    });
    expect(output).toEqual({
      password: REDACTED,
      apiKey: REDACTED,
      SLACK_BOT_TOKEN: REDACTED,
      pin: 1234,
      promptTokens: 12,
      max_tokens: 100,
      token: '',
    });
  });

  it('copes with cycles and leaves non-plain objects as they are', () => {
    const when = new Date(0);
    const input: Record<string, unknown> = { when, text: `x ${TOKENS.awsKey}` };
    input.self = input;
    const output = redactor.redactValue(input);
    expect(output.text).toBe(`x ${REDACTED}`);
    expect(output.self).toBe(output);
    expect(output.when).toBe(when);
  });

  it('redacts a top-level string', () => {
    expect(redactor.redactValue(TOKENS.openaiLegacy)).toBe(REDACTED);
  });
});

describe('Redactor: speed', () => {
  it('redacts 64 KB of tool output quickly, even an unbroken blob', () => {
    const logLine = `2026-01-01T00:00:00Z INFO service=api status=200 path=/v1/users duration_ms=12\n`;
    const inputs = [
      logLine.repeat(Math.ceil(65_536 / logLine.length)).slice(0, 65_536),
      'A1b2_'.repeat(13_108),
      'https://host:'.repeat(5_041),
      `${TOKENS.slackBot} password=x `.repeat(900),
    ];
    for (const text of inputs) {
      const started = performance.now();
      for (let round = 0; round < 5; round++) redactor.redact(text);
      // Measured at about 2 ms per pass; the bound only catches a quadratic or exponential regression.
      expect((performance.now() - started) / 5).toBeLessThan(100);
    }
  });
});
