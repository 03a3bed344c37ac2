// Starts a scenario's world on 127.0.0.1 (HTTP servers, TCP ports, log files, MCP servers' files) and names it
// for templates.
// HTTP targets can answer by path (a fake API), keep the requests they got, and be changed while the world runs
// (a patrol scenario's rounds).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpChange } from './patrol-schema.js';
import type { World } from './schema.js';
import { type RunningMcpWorld, startMcpWorld } from './world-mcp.js';

/** One request an HTTP target of the world received. */
export interface WorldRequest {
  target: string;
  method: string;
  /** The path, without the query string. */
  path: string;
}

export interface RunningWorld {
  /** Values for {{...}} in task text, model arguments and settings: `http.api.url`, `logs.dir`, ... */
  values: Record<string, string>;
  /** The directory of the scenario's log files, when it has any. */
  logsDir: string | undefined;
  /** Every request the HTTP targets received, in order. */
  requests: readonly WorldRequest[];
  /** The world's MCP servers: their settings, the tools they list and the calls they received. */
  mcp: RunningMcpWorld;
  /** Changes what an HTTP target answers from its next request on. */
  changeHttp(name: string, change: HttpChange): void;
  close(): Promise<void>;
}

type Closable = HttpServer | TcpServer;

function listen(server: Closable): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Closable): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port nothing listens on: bound once to learn a free number, then released. */
async function closedPort(): Promise<number> {
  const probe = createTcpServer();
  const port = await listen(probe);
  await close(probe);
  return port;
}

export async function startWorld(world: World): Promise<RunningWorld> {
  const values: Record<string, string> = {};
  const servers: Closable[] = [];
  const targets = new Map<string, World['http'][string]>();
  const requests: WorldRequest[] = [];
  for (const [name, initial] of Object.entries(world.http)) {
    targets.set(name, { ...initial });
    const server = createHttpServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://world').pathname;
      requests.push({ target: name, method: request.method ?? 'GET', path });
      const whole = targets.get(name) ?? initial;
      const target = whole.paths[path] ?? whole;
      setTimeout(() => {
        response.writeHead(target.status, { 'content-type': target.content_type });
        response.end(target.body);
      }, target.delay_ms);
    });
    const port = await listen(server);
    servers.push(server);
    values[`http.${name}.url`] = `http://127.0.0.1:${port}/`;
    values[`http.${name}.port`] = String(port);
  }
  for (const [name, target] of Object.entries(world.tcp)) {
    let port: number;
    if (target.open) {
      const server = createTcpServer((socket) => socket.end());
      port = await listen(server);
      servers.push(server);
    } else {
      port = await closedPort();
    }
    values[`tcp.${name}.host`] = '127.0.0.1';
    values[`tcp.${name}.port`] = String(port);
  }
  let logsDir: string | undefined;
  if (Object.keys(world.logs).length > 0) {
    logsDir = mkdtempSync(join(tmpdir(), 'opsbot-eval-logs-'));
    for (const [file, lines] of Object.entries(world.logs))
      writeFileSync(join(logsDir, file), `${lines.join('\n')}\n`);
    values['logs.dir'] = logsDir;
  }
  const mcp = startMcpWorld(world.mcp);
  return {
    values,
    logsDir,
    requests,
    mcp,
    changeHttp(name, change) {
      const target = targets.get(name);
      if (!target) throw new Error(`the world has no HTTP target "${name}"`);
      targets.set(name, { ...target, ...change });
    },
    async close() {
      for (const server of servers) {
        if ('closeAllConnections' in server) server.closeAllConnections();
        await close(server);
      }
      if (logsDir) rmSync(logsDir, { recursive: true, force: true });
      mcp.close();
    },
  };
}
