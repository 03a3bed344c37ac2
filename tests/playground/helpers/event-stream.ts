// A small SSE client for tests (Node 20 has no EventSource): reads /api/events and waits for matching events.

export interface StreamEvent {
  id?: string;
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: events are JSON whose shape each test checks itself.
  data: any;
}

interface Waiter {
  predicate: (event: StreamEvent) => boolean;
  resolve: (event: StreamEvent) => void;
}

export class EventStream {
  readonly events: StreamEvent[] = [];
  private readonly waiters = new Set<Waiter>();
  private readonly abort = new AbortController();
  /** Resolves when the stream ends: closed by the test, or by the server. */
  ended: Promise<void> = Promise.resolve();

  private constructor() {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<EventStream> {
    const stream = new EventStream();
    const response = await fetch(url, { headers, signal: stream.abort.signal });
    if (!response.ok || !response.body) throw new Error(`GET ${url} answered ${response.status}`);
    stream.ended = stream.read(response.body);
    return stream;
  }

  /** The first event, already received or still to come, that matches. */
  next(predicate: (event: StreamEvent) => boolean, timeoutMs = 10_000): Promise<StreamEvent> {
    const seen = this.events.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        const got = this.events.map((event) => `${event.event}:${JSON.stringify(event.data).slice(0, 120)}`);
        reject(new Error(`No matching event within ${timeoutMs} ms; received:\n${got.join('\n')}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  get lastEventId(): string | undefined {
    return this.events.findLast((event) => event.id !== undefined)?.id;
  }

  close(): void {
    this.abort.abort();
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          this.receive(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // Closed by the test or the server.
    }
  }

  private receive(frame: string): void {
    const fields: Record<string, string> = {};
    for (const line of frame.split('\n')) {
      if (line.startsWith(':') || !line.includes(':')) continue;
      const colon = line.indexOf(':');
      fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
    }
    if (fields.event === undefined || fields.data === undefined) return;
    const event: StreamEvent = {
      event: fields.event,
      data: JSON.parse(fields.data),
      ...(fields.id === undefined ? {} : { id: fields.id }),
    };
    this.events.push(event);
    for (const waiter of this.waiters) {
      if (!waiter.predicate(event)) continue;
      this.waiters.delete(waiter);
      waiter.resolve(event);
    }
  }
}
