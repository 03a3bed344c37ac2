// On a loopback bind, the HTTP server answers only requests addressed to this machine: a page on another site
// whose name resolves to 127.0.0.1 (DNS rebinding) would otherwise read /readyz, /metrics and the playground.

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** The host a request names, without its port; '' when it names none (HTTP/1.0). */
export function hostnameOf(hostHeader: string | undefined): string {
  if (!hostHeader) return '';
  const bracketed = /^\[([^\]]+)\]/.exec(hostHeader);
  if (bracketed) return bracketed[1]!;
  return hostHeader.replace(/:\d+$/, '');
}

/**
 * Whether a server listening on `bindHost` may answer a request with this Host header. Off the loopback every
 * name is allowed: there the playground's token and the platforms' signatures guard the routes.
 */
export function hostAllowed(bindHost: string, hostHeader: string | undefined): boolean {
  return !isLoopback(bindHost) || isLoopback(hostnameOf(hostHeader));
}

export const FOREIGN_HOST_MESSAGE =
  'opsbot listens on this machine only and answers only requests addressed to it ' +
  '(Host: localhost, 127.0.0.1 or [::1]).';
