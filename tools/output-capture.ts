// Keeps the head and tail of a process's output within a byte limit, with a marker for what was dropped.
import { cutHead, cutTail } from './output-cut.js';

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
  /** The first byte after the head, to know whether the head ends a line. */
  private byteAfterHead: number | undefined;
  totalBytes = 0;

  /** `limit` bytes in all: half for the head, half for the tail. */
  constructor(private readonly limit: number) {}

  private get headLimit(): number {
    return Math.ceil(this.limit / 2);
  }

  private get tailLimit(): number {
    return Math.floor(this.limit / 2);
  }

  /** One byte more than the tail shows, to know whether the tail starts a line. */
  private get tailKept(): number {
    return this.tailLimit + 1;
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
    this.byteAfterHead ??= rest[0];
    if (rest.length >= this.tailKept) {
      this.tail = [Buffer.from(rest.subarray(rest.length - this.tailKept))];
      this.tailBytes = this.tailKept;
      return;
    }
    this.tail.push(Buffer.from(rest));
    this.tailBytes += rest.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailKept && this.tail.length > 1) {
      this.tailBytes -= this.tail.shift()?.length ?? 0;
    }
  }

  /**
   * Everything, or the head and tail around a marker. Each side of the cut ends on a line boundary (or, in a
   * line longer than MAX_CUT_SHIFT_BYTES, a word boundary): a token cut in two is recognised by no redaction
   * shape, so the part of it that would show is dropped with the rest.
   */
  result(): CapturedOutput {
    let head: Buffer = Buffer.concat(this.head);
    let tail: Buffer = Buffer.concat(this.tail);
    if (this.totalBytes <= head.length + tail.length && tail.length <= this.tailLimit) {
      return {
        text: Buffer.concat([head, tail]).toString('utf8'),
        totalBytes: this.totalBytes,
        truncated: false,
      };
    }
    const byteBeforeTail = tail[tail.length - this.tailLimit - 1];
    tail = cutTail(tail.subarray(tail.length - this.tailLimit), byteBeforeTail);
    head = cutHead(head, this.byteAfterHead);
    const dropped = this.totalBytes - head.length - tail.length;
    const marker = `\n[... ${dropped} bytes omitted, ${this.totalBytes} bytes in total; showing the first ${head.length} and last ${tail.length} ...]\n`;
    return {
      text: `${head.toString('utf8')}${marker}${tail.toString('utf8')}`,
      totalBytes: this.totalBytes,
      truncated: true,
    };
  }
}
