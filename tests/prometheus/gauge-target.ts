// A scrape target the test controls: `GET /metrics` answers one gauge per label set, in Prometheus' text format.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GaugeTarget {
  /** `127.0.0.1:port`, as a scrape config names it. */
  address: string;
  /** Sets `name{labels} value` for the next scrapes. */
  set(name: string, labels: Record<string, string>, value: number): void;
  close(): Promise<void>;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

export async function startGaugeTarget(): Promise<GaugeTarget> {
  const gauges = new Map<string, { name: string; labels: string; value: number }>();
  const server = createServer((request, response) => {
    if (request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    const names = new Set([...gauges.values()].map((gauge) => gauge.name));
    const lines = [...names].flatMap((name) => [
      `# TYPE ${name} gauge`,
      ...[...gauges.values()]
        .filter((gauge) => gauge.name === name)
        .map((gauge) => `${name}{${gauge.labels}} ${gauge.value}`),
    ]);
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(`${lines.join('\n')}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    set(name, labels, value) {
      const text = Object.entries(labels)
        .map(([key, item]) => `${key}="${escapeLabel(item)}"`)
        .join(',');
      gauges.set(`${name}{${text}}`, { name, labels: text, value });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
