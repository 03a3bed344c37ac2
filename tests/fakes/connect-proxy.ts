// A forward proxy on 127.0.0.1 that speaks CONNECT, as a corporate egress proxy does: it records each request
// line it is sent, then tunnels the bytes, or refuses with a status. Plain (absolute-URI) requests are refused.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';

export interface ProxySeen {
  /** e.g. "CONNECT 127.0.0.1:43123" or "GET http://127.0.0.1:43123/v1/models". */
  line: string;
  headers: IncomingHttpHeaders;
}

export interface FakeConnectProxyOptions {
  /** Answer every CONNECT with this status instead of tunnelling (403: the policy forbids the host). */
  refuseWith?: number;
  /** Require this Proxy-Authorization header; others get 407. */
  authorization?: string;
}

export class FakeConnectProxy {
  readonly seen: ProxySeen[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private port = 0;

  constructor(private readonly options: FakeConnectProxyOptions = {}) {
    this.server = createServer((request, response) => {
      this.seen.push({ line: `${request.method} ${request.url}`, headers: request.headers });
      response.writeHead(502, { 'content-type': 'text/plain' });
      response.end('This fake proxy only tunnels (CONNECT).');
    });
    this.server.on('connection', (socket: Socket) => this.track(socket));
    this.server.on('connect', (request, client: Socket, head: Buffer) => {
      this.seen.push({ line: `CONNECT ${request.url}`, headers: request.headers });
      const refusal = this.refusal(request.headers);
      if (refusal !== undefined) {
        client.end(`HTTP/1.1 ${refusal} Refused by the fake proxy\r\ncontent-length: 0\r\n\r\n`);
        return;
      }
      const [host, port] = splitHostPort(request.url ?? '');
      const upstream = this.track(connect(port, host));
      upstream.once('connect', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      // The target is down: say so as a proxy does, then hang up.
      upstream.once('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n'));
      client.once('error', () => upstream.destroy());
      client.once('close', () => upstream.destroy());
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The CONNECT lines alone, e.g. ["CONNECT 127.0.0.1:43123"]. */
  get connects(): string[] {
    return this.seen.map((one) => one.line).filter((line) => line.startsWith('CONNECT '));
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private refusal(headers: IncomingHttpHeaders): number | undefined {
    if (this.options.authorization && headers['proxy-authorization'] !== this.options.authorization)
      return 407;
    return this.options.refuseWith;
  }

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    return socket;
  }
}

export async function startFakeConnectProxy(options?: FakeConnectProxyOptions): Promise<FakeConnectProxy> {
  return new FakeConnectProxy(options).listen();
}

function splitHostPort(authority: string): [string, number] {
  const at = authority.lastIndexOf(':');
  return [authority.slice(0, at).replace(/^\[|\]$/g, ''), Number(authority.slice(at + 1))];
}
