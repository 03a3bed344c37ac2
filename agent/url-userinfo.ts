// The user-info part of a URL (`http://user:password@host/`): hidden wherever a URL is shown or logged, and
// taken out of a URL a client is given, to be sent as an Authorization header instead.

/** What stands for the user-info wherever a URL is shown. */
const MASK = '***';
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The URL as it may be shown: `http://opsuser:secret@models.internal/v1` reads `http://***@models.internal/v1`.
 * The user name is hidden too, since it often is the secret (`https://<token>@host`). The rest of the text is
 * kept as it was. In text that does not parse as a URL, everything from `//` (or the start) to the `@` before
 * the host is hidden, so a value mistyped or of another form ("user:pw@proxy:3128") is hidden as well.
 */
export function maskUrlUserinfo(raw: string): string {
  const scheme = SCHEME.exec(raw)?.[0];
  if (scheme !== undefined && URL.canParse(raw)) {
    const parsed = new URL(raw);
    if (parsed.username === '' && parsed.password === '') return raw;
    // The authority ends at the first /, ?, # or \ after the scheme; its user-info ends at its last @.
    const rest = raw.slice(scheme.length);
    const authorityEnd = rest.search(/[/?#\\]/);
    const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
    const at = authority.lastIndexOf('@');
    if (at !== -1) return `${scheme}${MASK}${rest.slice(at)}`;
  }
  if (raw.includes('//')) return raw.replace(/\/\/\S*@(?=[^\s@/?#]*(?:[/?#\s]|$))/, `//${MASK}@`);
  return raw.replace(/^[^\s/?#]*@/, `${MASK}@`);
}

export interface UrlWithoutCredentials {
  /** The URL without its user-info, for a client that must not see it (fetch refuses such URLs). */
  url: string;
  /** `Basic <base64 of user:password>`, when the URL carried credentials. */
  authorization?: string;
}

/** Takes the credentials out of an http(s) URL; a URL without them comes back as it was. */
export function splitUrlCredentials(raw: string): UrlWithoutCredentials {
  if (!URL.canParse(raw)) return { url: raw };
  const parsed = new URL(raw);
  if (parsed.username === '' && parsed.password === '') return { url: raw };
  // The URL holds them percent-encoded (a password with "@" or "/" must be written so).
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return {
    url: parsed.toString(),
    authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`,
  };
}
