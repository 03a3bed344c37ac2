// A patrol check may name the bot's own address as `{{opsbot.url}}` (e.g. `{{opsbot.url}}/healthz`), so that a
// check of the bot follows PORT and HOST instead of a port written into the settings.

export const SELF_URL_REFERENCE = '{{opsbot.url}}';

/** An address checks are validated with at start-up, before the server listens. */
const SAMPLE_SELF_URL = 'http://127.0.0.1:3000';

/** The args with every `{{opsbot.url}}` in their text replaced by `url`; anything else as it was. */
export function withSelfUrl(args: unknown, url: string): unknown {
  if (typeof args === 'string') return args.replaceAll(SELF_URL_REFERENCE, url);
  if (Array.isArray(args)) return args.map((item) => withSelfUrl(item, url));
  if (args !== null && typeof args === 'object') {
    return Object.fromEntries(Object.entries(args).map(([key, value]) => [key, withSelfUrl(value, url)]));
  }
  return args;
}

/** Every string in the args, however deep. */
export function stringsIn(args: unknown): string[] {
  if (typeof args === 'string') return [args];
  if (Array.isArray(args)) return args.flatMap(stringsIn);
  if (args !== null && typeof args === 'object') return Object.values(args).flatMap(stringsIn);
  return [];
}

/** The args as they are checked against the tool's input at start-up: the reference is a URL there. */
export function withSampleSelfUrl(args: unknown): unknown {
  return withSelfUrl(args, SAMPLE_SELF_URL);
}

/** How this process is reached from itself: a wildcard listen address is reached on the loopback. */
export function selfUrlOf(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  const shown = reachable.includes(':') && !reachable.startsWith('[') ? `[${reachable}]` : reachable;
  return `http://${shown}:${port}`;
}
