// The built-in credential shapes the Redactor looks for: token formats, keyed values, headers and URLs.

/**
 * A built-in credential shape. A `pre` group, when present, is kept verbatim (the key in `password=…`,
 * the word Bearer, the user in a URL), so the reader still sees what was hidden. `confirm`, when present, is
 * asked about each match, and a match it refuses is left as it is.
 */
export interface Shape {
  kind: string;
  source: string;
  confirm?: (match: string) => boolean;
}

/** Case-insensitive letters without the `i` flag, which would also loosen the case-sensitive shapes. */
export function anyCase(word: string): string {
  return word.replace(/[a-z]/gi, (letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`);
}

// Every shape starts with a literal or a lookbehind on the previous character, so the combined pass
// only does real work at plausible starts and stays linear on long unbroken blobs.
const TOKEN_CHAR = 'A-Za-z0-9_\\-';
export const SECRET_KEYS = [
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'secret',
  'token',
  'api[_-]?key',
  'access[_-]?key',
  'account[_-]?key',
  'private[_-]?key',
  'secret[_-]?key',
  // DB_PASS=, SIGNING_KEY: ...; the separator is required so that bypass= and monkey= survive.
  '[_-]pass',
  '[_-]key',
]
  .map((key) => key.replace(/[a-z]+/g, anyCase))
  .join('|');

/** URL query parameters that carry a credential: Azure SAS `sig=`, S3 `X-Amz-Signature=`, `?pass=`. */
const QUERY_KEYS = ['sig', 'signature', 'x-amz-signature', 'pass', 'pw', 'key', 'auth']
  .map(anyCase)
  .join('|');

/** base64 of `-----BEGIN`: a PEM block inside a Kubernetes secret's `tls.key:`, or piped through `base64`. */
const BASE64_PEM_START = 'LS0tLS1CRUdJTi';

/** Whether a base64 PEM block is a private key (not a certificate): its first line, decoded, says so. */
function isBase64PrivateKey(match: string): boolean {
  const firstLine = Buffer.from(match.slice(0, 88), 'base64').toString('latin1');
  return /PRIVATE KEY/.test(firstLine);
}

export const SHAPES: Shape[] = [
  {
    kind: 'private-key',
    source: `-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\\s\\S]*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|$)`,
  },
  {
    kind: 'base64-private-key',
    source: `(?<![A-Za-z0-9+/])${BASE64_PEM_START}[A-Za-z0-9+/]{20,}={0,2}`,
    confirm: isBase64PrivateKey,
  },
  // A Kubernetes dockerconfigjson secret, by its key or by the base64 of its opening `{"auths":`.
  {
    kind: 'docker-config',
    source: `(?<pre>\\.docker(?:configjson|cfg)["']?[ \\t]*:[ \\t]*["']?)[A-Za-z0-9+/]+={0,2}`,
  },
  { kind: 'base64-docker-config', source: `(?<![A-Za-z0-9+/])eyJhdXRocyI6[A-Za-z0-9+/]*={0,2}` },
  // The whole webhook URL is the credential; the path names workspace, channel and secret.
  {
    kind: 'slack-webhook',
    source: `(?<pre>${anyCase('https')}://hooks\\.slack\\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_/-]{20,}`,
  },
  {
    kind: 'discord-webhook',
    source: `(?<pre>${anyCase('https')}://(?:(?:ptb|canary)\\.)?discord(?:app)?\\.com/api/(?:v[0-9]{1,2}/)?webhooks/)[0-9]{15,22}/[${TOKEN_CHAR}]{20,}`,
  },
  { kind: 'stripe-key', source: `(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}` },
  { kind: 'google-api-key', source: `(?<![${TOKEN_CHAR}])AIza[${TOKEN_CHAR}]{35}(?![${TOKEN_CHAR}])` },
  { kind: 'gitlab-token', source: `(?<![A-Za-z0-9_])gl(?:pat|dt|rt|ptt|cbt)-[${TOKEN_CHAR}]{20,}` },
  { kind: 'npm-token', source: `(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])` },
  {
    kind: 'sendgrid-key',
    source: `(?<![${TOKEN_CHAR}.])SG\\.[${TOKEN_CHAR}]{16,32}\\.[${TOKEN_CHAR}]{30,64}`,
  },
  // Vault service, batch and recovery tokens.
  { kind: 'vault-token', source: `(?<![${TOKEN_CHAR}.])hv[sbr]\\.[${TOKEN_CHAR}]{20,}` },
  // Bot, user, refresh (xoxe-, xoxe.xoxp-), legacy and app-level tokens.
  {
    kind: 'slack-token',
    source: `(?<![A-Za-z0-9])(?:xox[abeoprs](?:\\.xox[abp])?|xapp)-[A-Za-z0-9][A-Za-z0-9-]{8,}`,
  },
  // sk-, sk-proj-, sk-svcacct-; a digit is required so that hyphenated words like sk-learn-… survive.
  {
    kind: 'openai-key',
    source: `(?<![${TOKEN_CHAR}])sk-(?=[${TOKEN_CHAR}]{0,300}?[0-9])[${TOKEN_CHAR}]{20,}`,
  },
  // base64 of a numeric snowflake (starts M, N or O), a 6-character timestamp and an HMAC.
  {
    kind: 'discord-token',
    source: `(?<![${TOKEN_CHAR}.])[MNO][${TOKEN_CHAR}]{23,27}\\.[${TOKEN_CHAR}]{6}\\.[${TOKEN_CHAR}]{27,}`,
  },
  {
    kind: 'jwt',
    source: `(?<![${TOKEN_CHAR}])eyJ[${TOKEN_CHAR}]{8,}\\.eyJ[${TOKEN_CHAR}]{8,}\\.[${TOKEN_CHAR}]+`,
  },
  { kind: 'aws-access-key', source: `(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])` },
  {
    kind: 'github-token',
    source: `(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`,
  },
  // The header keeps its scheme word; the credential may be short because the header says what it is.
  {
    kind: 'authorization-header',
    source: `(?<pre>(?<![A-Za-z0-9-])${anyCase('authorization')}["']?[ \\t]*[:=][ \\t]*["']?(?:${anyCase('bearer')}[ \\t]+|${anyCase('basic')}[ \\t]+|${anyCase('token')}[ \\t]+)?)[^\\s"',;]+`,
  },
  // Every cookie in the header is a session; the whole value goes, to the end of the line or the quote.
  {
    kind: 'cookie-header',
    source: `(?<pre>(?<![A-Za-z0-9-])(?:${anyCase('set-')})?${anyCase('cookie')}["']?[ \\t]*:[ \\t]*["']?)[^\\s"'][^\\r\\n"']*`,
  },
  // A bare "bearer X" outside a header needs X to look like a credential, not an English word.
  {
    kind: 'bearer-token',
    source: `(?<pre>(?<![A-Za-z0-9])${anyCase('bearer')}[ \\t]+)(?=[A-Za-z0-9._~+/-]*[0-9._~+/-]|[A-Za-z]{20})[A-Za-z0-9._~+/-]{8,}=*`,
  },
  // scheme://user:password@host keeps the user and the host.
  {
    kind: 'url-password',
    source: `(?<pre>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\\s:/@"'<>]*:)[^\\s/?#"'<>]+(?=@)`,
  },
  { kind: 'query-secret', source: `(?<pre>[?&;](?:${QUERY_KEYS})=)[^\\s&#"'<>]+` },
  // mysql -uroot -phunter2: the password glued to -p (a separate word after -p is the database).
  {
    kind: 'mysql-password',
    source: `(?<pre>(?<![A-Za-z0-9_.-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb(?:-dump|-admin)?)(?:[ \\t]+[^\\s]+){0,12}?[ \\t]+-p)(?:"[^"\\n]+(?=")|'[^'\\n]+(?=')|[^\\s"']+)`,
  },
  // password=…, "password": "…", SLACK_BOT_TOKEN=…; the key ends with the keyword so max_tokens survives.
  {
    kind: 'secret-value',
    source:
      `(?<pre>(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,40}?(?:${SECRET_KEYS})(?:\\\\?["'])?[ \\t]*[=:][ \\t]*)` +
      `(?:\\\\"(?:[^"\\\\\\n]|\\\\(?!"))+(?=\\\\")` + // value inside escaped quotes: {\"password\":\"x\"}
      `|"(?:[^"\\\\\\n]|\\\\.)+(?=")` + // "value" with JSON escapes, closing quote kept
      `|'[^'\\n]+(?=')` +
      `|(?![\\\\"'])[^\\s"'&,;<>]+)`,
  },
  // Docker's config.json and DOCKER_AUTH_CONFIG: "auth": "<base64 of user:password>".
  { kind: 'docker-auth', source: `(?<pre>"${anyCase('auth')}"[ \\t]*:[ \\t]*")[^"\\s]+(?=")` },
];

/** An access key id anywhere in an output makes every bare 40-character secret-key shape in it a secret. */
export const AWS_ACCESS_KEY_ID = /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/;
/** 40 base64 characters with both cases, so git SHA-1s (lower-case hex) and upper-case words survive. */
export const AWS_SECRET_KEY_NEAR_ID =
  /(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
/**
 * A candidate secret key with no key id in sight: 40 base64 characters with a `/` or `+`, not part of a longer
 * word, path or base64 run. About 7 in 10 real keys hold a `/` or `+`; the rest need their id beside them.
 */
export const AWS_SECRET_KEY_ALONE =
  /(?<![A-Za-z0-9/+=_.-])(?=[A-Za-z0-9/+]{0,39}[/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_.-])/g;

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

/**
 * Whether a candidate looks random, as a real key does (about 16 upper, 16 lower, 6 digits, 1 `/` or `+`), and
 * not like a path such as src/Components/Button2/index/Main/Footer.
 */
export function looksLikeAwsSecretKey(candidate: string): boolean {
  return (
    count(candidate, /[A-Z]/g) >= 5 &&
    count(candidate, /[a-z]/g) >= 5 &&
    // At least one digit: AWS's own documented example key has only one.
    count(candidate, /[0-9]/g) >= 1 &&
    count(candidate, /[/+]/g) <= 3
  );
}
