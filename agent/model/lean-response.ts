// The answer the HTTP transport hands the openai SDK: a whole body already read, behind the part of fetch's Response
// the SDK uses (status, headers, json, text, body). Building undici's Response and Headers for it cost about as
// much as the rest of reading the answer; this costs a Map. The body's stream is made only if someone asks for it.

/** Response headers by lower-cased name; a repeated header reads as its values joined, as Headers does. */
export class LeanHeaders {
  constructor(private readonly values: ReadonlyMap<string, string>) {}

  get(name: string): string | null {
    return this.values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }

  entries(): IterableIterator<[string, string]> {
    return this.values.entries();
  }

  keys(): IterableIterator<string> {
    return this.values.keys();
  }

  forEach(callback: (value: string, name: string, headers: LeanHeaders) => void): void {
    for (const [name, value] of this.values) callback(value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.values.entries();
  }
}

export interface LeanResponseInit {
  status: number;
  statusText: string;
  headers: ReadonlyMap<string, string>;
  url: string;
}

export class LeanResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: LeanHeaders;
  readonly url: string;
  readonly redirected = false;
  readonly type = 'basic';
  private used = false;
  private stream: ReadableStream<Uint8Array> | null | undefined;

  constructor(
    /** The whole body, decoded; null for a status that has none. */
    private readonly bytes: Buffer | null,
    init: LeanResponseInit,
  ) {
    this.status = init.status;
    this.statusText = init.statusText;
    this.ok = init.status >= 200 && init.status <= 299;
    this.headers = new LeanHeaders(init.headers);
    this.url = init.url;
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  /** The body as a stream, made the first time a reader wants one (the SDK cancels it before a retry). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.stream === undefined) this.stream = this.bytes === null ? null : new Response(this.bytes).body;
    return this.stream;
  }

  async text(): Promise<string> {
    this.used = true;
    return this.bytes === null ? '' : this.bytes.toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    this.used = true;
    const bytes = this.bytes ?? Buffer.alloc(0);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.arrayBuffer()], { type: this.headers.get('content-type') ?? '' });
  }

  clone(): LeanResponse {
    return new LeanResponse(this.bytes, {
      status: this.status,
      statusText: this.statusText,
      headers: new Map(this.headers.entries()),
      url: this.url,
    });
  }
}
