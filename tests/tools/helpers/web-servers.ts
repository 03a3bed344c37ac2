// Real HTTP and HTTPS servers on 127.0.0.1 with the routes the network tool tests need.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestCertificate } from './certificate.js';

function route(request: IncomingMessage, response: ServerResponse, port: () => number): void {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const redirect = (location: string, status = 302) => {
    response.writeHead(status, { location });
    response.end();
  };
  const hops = /^\/redirect\/(\d+)$/.exec(url.pathname);
  if (hops) {
    const left = Number(hops[1]);
    if (left === 0) {
      response.end('arrived');
      return;
    }
    redirect(`/redirect/${left - 1}`, left % 2 === 0 ? 301 : 302);
    return;
  }
  switch (url.pathname) {
    case '/health':
      response.writeHead(200, { 'content-type': 'text/plain', server: 'test-server' });
      response.end('status: ok\nversion: 1.2.3\n');
      return;
    case '/fail':
      response.writeHead(503, { 'content-type': 'text/plain' });
      response.end('maintenance');
      return;
    case '/loop':
      redirect('/loop');
      return;
    case '/to-metadata':
      redirect('http://169.254.169.254/latest/meta-data/');
      return;
    case '/cross-origin':
      redirect(`http://localhost:${port()}/echo-headers`);
      return;
    case '/echo-headers':
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(request.headers));
      return;
    case '/big':
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(`${'x'.repeat(1024 * 1024)}needle`);
      return;
    case '/slow':
      // Never answers; the client's time limit must end the request.
      return;
    default:
      response.writeHead(404);
      response.end('not found');
  }
}

export interface TestWebServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

async function listen(server: Server, scheme: 'http' | 'https'): Promise<TestWebServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function startHttpServer(): Promise<TestWebServer> {
  let port = 0;
  const server = createHttpServer((request, response) => route(request, response, () => port));
  return listen(server, 'http').then((started) => {
    port = started.port;
    return started;
  });
}

export function startHttpsServer(certificate: TestCertificate): Promise<TestWebServer> {
  let port = 0;
  const server = createHttpsServer(certificate, (request, response) => route(request, response, () => port));
  return listen(server, 'https').then((started) => {
    port = started.port;
    return started;
  });
}
