// Attacks on redaction: credential shapes that used to pass through, and key blocks shown only in part.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyBlockTracker } from '../../agent/private-key-blocks.js';
import { REDACTED, Redactor } from '../../agent/redaction.js';

const redactor = new Redactor();

/** A real PKCS#8 RSA key, so the body has the line widths and alphabet of the real thing. */
const PEM = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString()
  .trimEnd();
const PEM_LINES = PEM.split('\n');
const BODY = PEM_LINES.slice(1, -1);

function expectNoKeyMaterial(text: string): void {
  for (const line of BODY) expect(text).not.toContain(line);
}

// Fake credentials with the real shapes; none of them is valid anywhere.
const BARE_SHAPES: Record<string, string> = {
  'Stripe live secret key': 'sk_live_51H8xYzAbCdEfGhIjKlMnOpQr0123456789',
  'Stripe live restricted key': 'rk_live_51H8xYzAbCdEfGhIjKlMnOpQr0123456789',
  'Google API key': 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q',
  'GitLab personal access token': 'glpat-Ab12Cd34Ef56Gh78Ij90',
  'npm token': 'npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
};

describe('attack: credential shapes that went through', () => {
  for (const [name, token] of Object.entries(BARE_SHAPES)) {
    it(`attack: a bare ${name} in tool output is redacted`, () => {
      expect(redactor.redact(token)).toBe(REDACTED);
      expect(redactor.redact(`config loaded (${token}) ok`)).toBe(`config loaded (${REDACTED}) ok`);
    });
  }

  it('attack: a Slack webhook URL is redacted after its fixed prefix', () => {
    const url = 'https://hooks.slack.com/services/T0123ABCD/B0456EFGH/AbCdEfGhIjKlMnOpQrStUvWx';
    const redacted = redactor.redact(`posting to ${url} now`);
    expect(redacted).toBe(`posting to https://hooks.slack.com/services/${REDACTED} now`);
  });

  it('attack: a bare 40-character AWS secret key next to its access key id is redacted', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const output = `[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\nsecret ${secret}\n`;
    expect(redactor.redact(output)).not.toContain(secret);
    // Same output, different fields of one tool result.
    const value = redactor.redactValue({ id: 'ASIAY34FZKBOKMUTVV7A', rows: [`${secret}`] });
    expect(value).toEqual({ id: REDACTED, rows: [REDACTED] });
  });

  it('leaves 40-character shapes without a / or + alone when no access key id is in the output, and git SHA-1s always', () => {
    // Since issue 27, a random-looking 40-character shape with a / or + is masked even alone (secret-corpus.test.ts).
    const plainShape = 'wJalrXUtnFEMIxK7MDENGxbPxRfiCYEXAMPLEKEY';
    expect(redactor.redact(`blob ${plainShape}`)).toBe(`blob ${plainShape}`);
    const sha = 'da39a3ee5e6b4b0d3255bfef95601890afd80709';
    expect(redactor.redact(`AKIAIOSFODNN7EXAMPLE commit ${sha}`)).toBe(`${REDACTED} commit ${sha}`);
  });

  const assignments: Array<[string, string]> = [
    ['DB_PASS=hunter2', `DB_PASS=${REDACTED}`],
    ['export MYSQL_ROOT_PASSWORD="correct horse"', `export MYSQL_ROOT_PASSWORD="${REDACTED}"`],
    ['webhook_secret = abc123', `webhook_secret = ${REDACTED}`],
    ['  ci_job_token: glcbt-xyz', `  ci_job_token: ${REDACTED}`],
    ['SIGNING_KEY=0123abcd', `SIGNING_KEY=${REDACTED}`],
    ['{"REDIS_PASS": "s3cret", "port": 6379}', `{"REDIS_PASS": "${REDACTED}", "port": 6379}`],
    ["smtp_pass: 'p w'", `smtp_pass: '${REDACTED}'`],
  ];
  for (const [input, expected] of assignments) {
    it(`attack: the assignment ${JSON.stringify(input)} has its value redacted`, () => {
      expect(redactor.redact(input)).toBe(expected);
    });
  }

  it('leaves words that only end like a key name alone', () => {
    const text = 'bypass=true monkey=george keyboard: us';
    expect(redactor.redact(text)).toBe(text);
  });
});

describe('attack: a private key shown only in part', () => {
  it('attack: PEM key body matched without its BEGIN line is redacted', () => {
    const output = ['2026-01-01 INFO loading', ...PEM_LINES.slice(5), '2026-01-01 INFO done'].join('\n');
    const redacted = redactor.redact(output);
    expectNoKeyMaterial(redacted);
    expect(redacted).toBe(`2026-01-01 INFO loading\n${REDACTED}\n2026-01-01 INFO done`);
  });

  it('attack: PEM key body without either marker line is redacted', () => {
    const output = ['before', ...BODY.slice(3, 9), 'after'].join('\n');
    expect(redactor.redact(output)).toBe(`before\n${REDACTED}\nafter`);
  });

  it('attack: PEM key with BEGIN but no END line is redacted to the end of the output', () => {
    const redacted = redactor.redact(['start', ...PEM_LINES.slice(0, 10)].join('\n'));
    expectNoKeyMaterial(redacted);
    expect(redacted.startsWith('start\n')).toBe(true);
  });

  it('leaves the body of a certificate alone, whole or with its BEGIN line cut off', () => {
    // A certificate's body has the same alphabet and width as a key's; it is public.
    const certificate = [
      '-----BEGIN CERTIFICATE-----',
      ...BODY.slice(0, 6),
      'AQAB',
      '-----END CERTIFICATE-----',
    ];
    const whole = ['chain:', ...certificate, 'done'].join('\n');
    expect(redactor.redact(whole)).toBe(whole);
    const cut = certificate.slice(2).join('\n');
    expect(redactor.redact(cut)).toBe(cut);
  });

  it('leaves a lone sha256 digest line and short words around it alone', () => {
    const text = 'digest\n9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\ndone';
    expect(redactor.redact(text)).toBe(text);
  });
});

describe('KeyBlockTracker reads a file the same both ways', () => {
  const files: Record<string, string[]> = {
    'whole block': ['a log line', ...PEM_LINES, 'another log line'],
    'END without BEGIN': [...PEM_LINES.slice(7), 'after: 1'],
    'BEGIN without END': ['before: 1', ...PEM_LINES.slice(0, 12), 'after: 2'],
    'body only': ['before: 1', ...BODY.slice(2, 8), 'after: 2'],
  };
  for (const [name, lines] of Object.entries(files)) {
    it(`attack: every key line of "${name}" is inside reading forwards and reading backwards`, () => {
      const forwards = new KeyBlockTracker('forward');
      for (const line of lines) forwards.push(line);
      forwards.finish();
      const backwards = new KeyBlockTracker('backward');
      for (const line of [...lines].reverse()) backwards.push(line);
      backwards.finish();
      lines.forEach((line, index) => {
        const isKeyLine = PEM_LINES.includes(line);
        const fromEnd = lines.length - 1 - index;
        if (isKeyLine) {
          expect(forwards.isInside(index), `forwards line ${index}`).toBe(true);
          expect(backwards.isInside(fromEnd), `backwards line ${index}`).toBe(true);
        }
        if (line.includes(':') && !line.startsWith('-----')) {
          expect(backwards.isInside(fromEnd), `log line ${index} backwards`).toBe(false);
        }
      });
    });
  }
});
