// The tls_certificate tool: what certificate a TLS endpoint presents, how long it has left, whether it verifies.
import { isIP } from 'node:net';
import { checkServerIdentity, connect, type DetailedPeerCertificate, type TLSSocket } from 'node:tls';
import { z } from 'zod';
import { defineTool, type Tool } from '../agent/tool.js';
import { abortText, errorText, timeoutField, withCallLimits } from './call-limits.js';
import { firstValue } from './http-request.js';
import { type NetworkGuard, NetworkRefusal } from './network-guard.js';
import { hostField, portField } from './network-input.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 30_000;
const DAY_MS = 86_400_000;

const input = z
  .object({
    host: hostField,
    port: portField('TLS port, 443 by default.').default(443),
    servername: hostField
      .optional()
      .describe('Name to send as SNI and check the certificate against, when it differs from host.'),
    min_days_left: z
      .number()
      .int()
      .min(0)
      .max(3650)
      .default(14)
      .describe('The check fails when fewer days than this are left (default 14).'),
    timeout_ms: timeoutField(DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
  })
  .strict();

const description = `Connects to a TLS endpoint (host:port, 443 by default) and reports the certificate it presents: subject, issuer, subject alternative names, validity dates, days left, whether the chain verifies against the system's trusted CAs, and whether it matches the host name.
Result data: subject, issuer, subject_alt_names, valid_from, valid_to, days_left, expired, chain_verified, verify_error (e.g. DEPTH_ZERO_SELF_SIGNED_CERT), hostname_matches, fingerprint_sha256, serial_number, protocol, chain [{subject, issuer, valid_to}]. ok is false when the chain does not verify, the name does not match, or fewer than min_days_left days are left.
Use this when you need to know when a certificate expires, why clients reject it, or which certificate a service really serves.
Do not use it to check whether an HTTP service works (use http_check) or whether a port is open (use tcp_check). Hosts outside the network allow list, cloud metadata addresses and the unspecified addresses (0.0.0.0, ::) are refused.`;

function names(fields: DetailedPeerCertificate['subject'] | undefined): string {
  if (!fields) return '';
  return Object.entries(fields)
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('+') : value}`)
    .join(', ');
}

function chainOf(
  certificate: DetailedPeerCertificate,
): { subject: string; issuer: string; valid_to: string }[] {
  const chain: { subject: string; issuer: string; valid_to: string }[] = [];
  let current: DetailedPeerCertificate | undefined = certificate;
  const seen = new Set<string>();
  while (current?.fingerprint256 && !seen.has(current.fingerprint256) && chain.length < 10) {
    seen.add(current.fingerprint256);
    chain.push({
      subject: names(current.subject),
      issuer: names(current.issuer),
      valid_to: new Date(current.valid_to).toISOString(),
    });
    current = current.issuerCertificate;
  }
  return chain;
}

function handshake(address: string, port: number, servername: string | undefined, signal: AbortSignal) {
  return new Promise<TLSSocket>((resolve, reject) => {
    // rejectUnauthorized is off so an invalid certificate can still be inspected; `authorized` says if it verified.
    const socket = connect({ host: address, port, servername, rejectUnauthorized: false });
    const onAbort = () =>
      socket.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('secureConnect', () => {
      signal.removeEventListener('abort', onAbort);
      resolve(socket);
    });
    socket.once('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(error);
    });
  });
}

export function createTlsCertificateTool(options: { guard: NetworkGuard; now?: () => number }): Tool {
  const now = options.now ?? Date.now;
  return defineTool({
    name: 'tls_certificate',
    description,
    input,
    risk: 'read',
    timeoutMs: MAX_TIMEOUT_MS,
    execute(ctx, args) {
      return withCallLimits(ctx, args.timeout_ms, DEFAULT_TIMEOUT_MS, async (limits) => {
        const target = `${args.host}:${args.port}`;
        const expectedName = (args.servername ?? args.host).replace(/^\[|\]$/g, '');
        let socket: TLSSocket | undefined;
        try {
          const checked = await options.guard.check(args.host, limits.signal);
          const address = checked.addresses[0]?.address;
          if (!address) throw new NetworkRefusal(`refused: ${args.host} has no usable address`);
          socket = await handshake(
            address,
            args.port,
            isIP(expectedName) ? undefined : expectedName,
            limits.signal,
          );
          const certificate = socket.getPeerCertificate(true);
          if (!certificate?.valid_to) {
            return {
              ok: false,
              summary: `${target} presented no certificate.`,
              data: { host: args.host, port: args.port },
            };
          }
          const validTo = new Date(certificate.valid_to);
          const daysLeft = Math.floor((validTo.getTime() - now()) / DAY_MS);
          const expired = validTo.getTime() <= now();
          const identityError = checkServerIdentity(expectedName, certificate);
          const chainVerified = socket.authorized;
          const verifyError = socket.authorizationError ? String(socket.authorizationError) : null;
          const subjectAltNames = (certificate.subjectaltname ?? '')
            .split(',')
            .map((entry) => entry.trim())
            .filter(Boolean);
          const subject = firstValue(certificate.subject?.CN) ?? names(certificate.subject);
          const issuer = firstValue(certificate.issuer?.CN) ?? names(certificate.issuer);
          const problems: string[] = [];
          if (!chainVerified) problems.push(`the chain does not verify (${verifyError ?? 'unknown reason'})`);
          if (identityError) problems.push(`it does not match ${expectedName}`);
          if (expired) problems.push('it has expired');
          else if (daysLeft < args.min_days_left)
            problems.push(`fewer than ${args.min_days_left} days are left`);
          const when = expired ? `expired ${-daysLeft} days ago` : `expires in ${daysLeft} days`;
          const summary = `${target} presents CN=${subject} issued by ${issuer}, which ${when} (${validTo.toISOString().slice(0, 10)})${problems.length > 0 ? `; ${problems.join('; ')}` : '; the chain verifies and the name matches'}.`;
          return {
            ok: problems.length === 0,
            summary,
            data: {
              host: args.host,
              port: args.port,
              address,
              subject,
              subject_full: names(certificate.subject),
              issuer,
              issuer_full: names(certificate.issuer),
              subject_alt_names: subjectAltNames,
              valid_from: new Date(certificate.valid_from).toISOString(),
              valid_to: validTo.toISOString(),
              days_left: daysLeft,
              expired,
              chain_verified: chainVerified,
              verify_error: verifyError,
              hostname_matches: identityError === undefined,
              hostname_error: identityError?.message ?? null,
              fingerprint_sha256: certificate.fingerprint256,
              serial_number: certificate.serialNumber,
              protocol: socket.getProtocol(),
              chain: chainOf(certificate),
            },
          };
        } catch (error) {
          if (error instanceof NetworkRefusal) {
            return {
              ok: false,
              summary: `tls_certificate ${target} ${error.message}.`,
              data: { refused: true },
            };
          }
          const why = limits.signal.aborted ? abortText(limits) : errorText(error);
          return {
            ok: false,
            summary: `Could not complete a TLS handshake with ${target}: ${why}.`,
            data: { error: why },
          };
        } finally {
          socket?.destroy();
        }
      });
    },
  });
}
