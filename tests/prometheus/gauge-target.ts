// A scrape target the test controls: `GET /metrics` answers one gauge per label set, in Prometheus' text format.
// It runs in a process of its own: a test worker busy for a second (building a kernel on a loaded machine) would
// otherwise miss a 1 s scrape, and Prometheus marks the series stale at once, so a query finds nothing.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface GaugeTarget {
  /** `127.0.0.1:port`, as a scrape config names it. */
  address: string;
  /** Sets `name{labels} value` for the next scrapes. */
  set(name: string, labels: Record<string, string>, value: number): Promise<void>;
  close(): Promise<void>;
}

/** The target's program, plain JavaScript for `node -e`: POST /set changes a gauge, GET /metrics lists them. */
const PROGRAM = `
const { createServer } = require('node:http');
const gauges = new Map();
const escape = (value) => value.replace(/\\\\/g, '\\\\\\\\').replace(/\\n/g, '\\\\n').replace(/"/g, '\\\\"');
const server = createServer((request, response) => {
  if (request.method === 'POST' && request.url === '/set') {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const { name, labels, value } = JSON.parse(body);
      const text = Object.entries(labels).map(([key, item]) => key + '="' + escape(item) + '"').join(',');
      gauges.set(name + '{' + text + '}', { name, text, value });
      response.writeHead(204).end();
    });
    return;
  }
  if (request.url !== '/metrics') return response.writeHead(404).end();
  const names = new Set([...gauges.values()].map((gauge) => gauge.name));
  const lines = [...names].flatMap((name) => [
    '# TYPE ' + name + ' gauge',
    ...[...gauges.values()].filter((gauge) => gauge.name === name).map((gauge) => name + '{' + gauge.text + '} ' + gauge.value),
  ]);
  response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(lines.join('\\n') + '\\n');
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

export async function startGaugeTarget(): Promise<GaugeTarget> {
  // stdin stays open while the test runs: if the test process dies, the target sees its end and exits too.
  const child: ChildProcess = spawn(process.execPath, ['-e', PROGRAM], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  let port: number | undefined;
  for await (const line of createInterface({ input: child.stdout! })) {
    port = Number(line);
    break;
  }
  if (!port) throw new Error('the gauge target exited before it listened');
  const base = `http://127.0.0.1:${port}`;
  return {
    address: `127.0.0.1:${port}`,
    async set(name, labels, value) {
      const response = await fetch(`${base}/set`, {
        method: 'POST',
        body: JSON.stringify({ name, labels, value }),
      });
      if (response.status !== 204) throw new Error(`the gauge target answered ${response.status}`);
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
