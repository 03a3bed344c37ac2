// A patrol that checks the bot's own endpoints on a port it does not listen on reports the bot down when it is
// up. Valid settings, wrong result: said as a warning at start-up and by `opsbot config check`.
import type { Patrols } from './patrol-settings.js';
import { SELF_URL_REFERENCE, stringsIn } from './self-address.js';

/** The bot's own endpoints: a loopback URL with one of these paths means the check is of this bot. */
const OWN_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function selfPortWarnings(patrols: Patrols, listen: { host: string; port: number }): string[] {
  // PORT=0 picks a free port at start: no written port can be right, and `{{opsbot.url}}` is the only way.
  const warnings: string[] = [];
  for (const [name, patrol] of Object.entries(patrols)) {
    for (const check of patrol.checks) {
      for (const text of stringsIn(check.args)) {
        const port = ownEndpointPort(text, listen.host);
        if (port === undefined || port === listen.port) continue;
        const path = new URL(text).pathname;
        warnings.push(
          `patrol ${name}, check "${check.id}" checks ${text}, but opsbot listens on port ${listen.port === 0 ? 'a free one (PORT=0)' : `${listen.port} (PORT)`}: write '${SELF_URL_REFERENCE}${path}' to check this bot wherever it listens`,
        );
      }
    }
  }
  return warnings;
}

/** The port of a URL at one of the bot's own endpoints on this machine; undefined for any other text. */
function ownEndpointPort(text: string, host: string): number | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (!LOOPBACK.has(url.hostname) && url.hostname !== host) return undefined;
  if (!OWN_PATHS.has(url.pathname)) return undefined;
  return url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
}
