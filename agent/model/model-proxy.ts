// Which HTTP proxy the model client goes through, read from the usual variables exactly as undici's
// EnvHttpProxyAgent reads them, so that what start-up says is what the connection does.
import { maskUrlUserinfo } from '../url-userinfo.js';

/** The variables undici's EnvHttpProxyAgent honours; lower case wins over upper case, as it does there. */
export const PROXY_VARIABLES = [
  'https_proxy',
  'HTTPS_PROXY',
  'http_proxy',
  'HTTP_PROXY',
  'no_proxy',
  'NO_PROXY',
] as const;
export type ProxyVariable = (typeof PROXY_VARIABLES)[number];
export type ProxyEnvironment = Readonly<Partial<Record<ProxyVariable, string | undefined>>>;

/** A proxy address and the variable that set it. */
interface ProxySetting {
  url: string;
  variable: ProxyVariable;
}

/** The values to give EnvHttpProxyAgent: each one set ('' for none), so it never reads process.env itself. */
export interface ProxySettings {
  http: ProxySetting | undefined;
  https: ProxySetting | undefined;
  noProxy: string;
}

export function proxySettings(env: ProxyEnvironment): ProxySettings {
  const http = first(env, 'http_proxy', 'HTTP_PROXY');
  // As in undici: without HTTPS_PROXY, https:// goes through HTTP_PROXY.
  const https = first(env, 'https_proxy', 'HTTPS_PROXY') ?? http;
  return { http, https, noProxy: env.no_proxy ?? env.NO_PROXY ?? '' };
}

/** A proxy in use for the model: its address with any credentials hidden, and the variable that set it. */
export type ModelProxy = ProxySetting;

/** The proxy a request to `baseURL` goes through, or undefined when none is set or NO_PROXY names its host. */
export function modelProxyFor(baseURL: string, env: ProxyEnvironment): ModelProxy | undefined {
  const settings = proxySettings(env);
  const target = new URL(baseURL);
  const proxy = target.protocol === 'https:' ? settings.https : settings.http;
  if (!proxy || !shouldProxy(target, settings.noProxy)) return undefined;
  return { url: maskUrlUserinfo(proxy.url), variable: proxy.variable };
}

function first(env: ProxyEnvironment, lower: ProxyVariable, upper: ProxyVariable): ProxySetting | undefined {
  // `??`, not `||`, as undici reads them: a blank lower-case variable turns the upper-case one off too.
  const variable = env[lower] !== undefined ? lower : upper;
  const url = env[variable];
  return url ? { url, variable } : undefined;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** undici's NO_PROXY rule (env-http-proxy-agent.js): exact host or a subdomain of it, optionally with a port. */
function shouldProxy(target: URL, noProxy: string): boolean {
  // Host without its port, keeping the brackets of an IPv6 address, as undici compares it.
  const hostname = target.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(target.port, 10) || DEFAULT_PORTS[target.protocol] || 0;
  const entries = noProxy.split(/[,\s]/).filter((entry) => entry !== '');
  if (entries.length === 0) return true;
  if (noProxy === '*') return false;
  for (const entry of entries) {
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed?.[1] ?? entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = parsed?.[2] ? Number.parseInt(parsed[2], 10) : 0;
    if (entryPort && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return false;
  }
  return true;
}
