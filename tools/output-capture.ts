// Keeps the head and tail of a process's output within a byte limit, with a marker for what was dropped.

export interface CapturedOutput {
  /** Head, marker and tail when over the limit; everything otherwise. */
  text: string;
  /** Bytes the process wrote to this stream, kept or not. */
  totalBytes: number;
  truncated: boolean;
}

export class OutputCapture {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  totalBytes = 0;

  /** `limit` bytes in all: half for the head, half for the tail. */
  constructor(private readonly limit: number) {}

  private get headLimit(): number {
    return Math.ceil(this.limit / 2);
  }

  private get tailLimit(): number {
    return Math.floor(this.limit / 2);
  }

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.headBytes, rest.length);
      this.head.push(Buffer.from(rest.subarray(0, take)));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    if (rest.length >= this.tailLimit) {
      this.tail = [Buffer.from(rest.subarray(rest.length - this.tailLimit))];
      this.tailBytes = this.tailLimit;
      return;
    }
    this.tail.push(Buffer.from(rest));
    this.tailBytes += rest.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailLimit && this.tail.length > 1) {
      this.tailBytes -= this.tail.shift()?.length ?? 0;
    }
  }

  result(): CapturedOutput {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (tail.length > this.tailLimit) tail = tail.subarray(tail.length - this.tailLimit);
    const kept = head.length + tail.length;
    const dropped = this.totalBytes - kept;
    if (dropped <= 0) {
      return {
        text: Buffer.concat([head, tail]).toString('utf8'),
        totalBytes: this.totalBytes,
        truncated: false,
      };
    }
    const marker = `\n[... ${dropped} bytes omitted, ${this.totalBytes} bytes in total; showing the first ${head.length} and last ${tail.length} ...]\n`;
    return {
      text: `${head.toString('utf8')}${marker}${tail.toString('utf8')}`,
      totalBytes: this.totalBytes,
      truncated: true,
    };
  }
}
