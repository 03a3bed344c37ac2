// The tcp_check tool: can a TCP connection be opened to host:port, and how long does it take.
import { connect } from 'node:net';
import { z } from 'zod';
import { defineTool, type Tool } from '../agent/tool.js';
import { abortText, errorCode, errorText, timeoutField, withCallLimits } from './call-limits.js';
import { type NetworkGuard, NetworkRefusal } from './network-guard.js';
import { hostField, portField } from './network-input.js';

const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 30_000;

const input = z
  .object({
    host: hostField,
    port: portField('TCP port, 1-65535.'),
    timeout_ms: timeoutField(DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
  })
  .strict();

const description = `Opens a TCP connection to host:port, closes it at once, and reports whether it connected and how long the connection took.
Result data: host, port, address (the IP actually used), connected, latency_ms, error_code (ECONNREFUSED, ETIMEDOUT, ...).
Use this when you need to know whether something listens on a port and is reachable from here: a database, a cache, a load balancer, a port that should be closed.
Do not use it for HTTP(S) services (use http_check, which also checks the response) or for certificates (use tls_certificate). Hosts and addresses outside the network allow list, cloud metadata addresses and the unspecified addresses (0.0.0.0, ::) are refused.`;

function connectOnce(address: string, port: number, signal: AbortSignal): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ host: address, port, signal });
    socket.once('connect', () => {
      const latency = performance.now() - started;
      socket.destroy();
      resolve(latency);
    });
    socket.once('error', (error) => {
      socket.destroy();
      reject(error);
    });
  });
}

export function createTcpCheckTool(options: { guard: NetworkGuard }): Tool {
  return defineTool({
    name: 'tcp_check',
    description,
    input,
    risk: 'read',
    timeoutMs: MAX_TIMEOUT_MS,
    execute(ctx, args) {
      return withCallLimits(ctx, args.timeout_ms, DEFAULT_TIMEOUT_MS, async (limits) => {
        const target = `${args.host}:${args.port}`;
        let address: string | undefined;
        try {
          const checked = await options.guard.check(args.host, limits.signal);
          address = checked.addresses[0]?.address;
          if (!address) throw new NetworkRefusal(`${args.host} has no usable address`);
          const latency = await connectOnce(address, args.port, limits.signal);
          const latencyMs = Math.round(latency * 10) / 10;
          return {
            ok: true,
            summary: `Connected to ${target}${address !== args.host ? ` (${address})` : ''} in ${latencyMs} ms.`,
            data: {
              host: args.host,
              port: args.port,
              address,
              connected: true,
              latency_ms: latencyMs,
              error_code: null,
            },
          };
        } catch (error) {
          if (error instanceof NetworkRefusal) {
            return { ok: false, summary: `tcp_check ${target} ${error.message}.`, data: { refused: true } };
          }
          const why = limits.signal.aborted ? abortText(limits) : errorText(error);
          return {
            ok: false,
            summary: `Could not connect to ${target}: ${why}.`,
            data: {
              host: args.host,
              port: args.port,
              address: address ?? null,
              connected: false,
              latency_ms: null,
              error_code: limits.signal.aborted
                ? limits.cancelledByCaller()
                  ? 'CANCELLED'
                  : 'ETIMEDOUT'
                : (errorCode(error) ?? null),
            },
          };
        }
      });
    },
  });
}
