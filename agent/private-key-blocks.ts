// Knows which lines lie inside a PEM private key block, reading forwards or backwards, so a key's body is
// hidden even when the BEGIN or END line is not among the lines shown.

/** The longest block kept open without its other marker; a 16384-bit RSA key in PKCS#8 is about 200 lines. */
export const MAX_KEY_BLOCK_LINES = 256;

const BEGIN_MARKER = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/;
const END_MARKER = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/;
/** Certificates, public keys and other PEM blocks: full-width base64 inside them is not key material. */
const OTHER_BEGIN_MARKER = /-----BEGIN [A-Z0-9 ]{1,60}-----/;
const OTHER_END_MARKER = /-----END [A-Z0-9 ]{1,60}-----/;
/**
 * What sits between the markers: base64, the headers of legacy encrypted keys, and blank lines. A short base64
 * line needs its padding, so that single words (done, started) around a key are not taken for it.
 */
const BODY_LINE =
  /^[ \t]*(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9+/]{1,15}={1,2}|(?:Proc-Type|DEK-Info|Comment):[^\n]*)?[ \t\r]*$/;
/**
 * A full-width armoured line (64 characters for PEM, 70 for OpenSSH, 76 for MIME) with a character outside
 * hex, so sha256 digests are not taken for key material.
 */
const FULL_WIDTH_LINE =
  /^(?=[A-Za-z0-9+/]*[G-Zg-z+/])(?:[A-Za-z0-9+/]{64}|[A-Za-z0-9+/]{70}|[A-Za-z0-9+/]{76})\r?$/;
/** A key's or certificate's short last line without padding (AQAB); only looked past, never marked alone. */
const SHORT_LAST_LINE = /^[ \t]*[A-Za-z0-9+/]{1,15}[ \t\r]*$/;

export type ReadingDirection = 'forward' | 'backward';

/** Inclusive range of line numbers in reading order (0 is the first line read). */
export type LineRange = readonly [first: number, last: number];

/**
 * Fed one line at a time in reading order. A block runs from its opening marker (BEGIN when reading forwards,
 * END when reading backwards) to the other marker, or for at most MAX_KEY_BLOCK_LINES when that never comes.
 * A closing marker read with no opening one claims the body lines read just before it. Two or more
 * full-width base64 lines in a row count as key material even with no marker in sight, unless they turn out
 * to be the body of a certificate or public key.
 */
export class KeyBlockTracker {
  private lastSeen = -1;
  private openedAt: number | undefined;
  private otherOpenedAt: number | undefined;
  /** The current run of body-looking lines outside any block: first and last line. */
  private runStart: number | undefined;
  private runEnd = -1;
  private fullWidthInRun = 0;
  /** The run was followed by a short line that may be its last; the line after it decides. */
  private shortLineAfterRun = false;
  private readonly ranges: [number, number][] = [];

  constructor(private readonly direction: ReadingDirection) {}

  /** Feeds the next line; returns its number in reading order. */
  push(line: string): number {
    const index = ++this.lastSeen;
    const hasBegin = BEGIN_MARKER.test(line);
    const hasEnd = END_MARKER.test(line);
    const forward = this.direction === 'forward';
    const opens = forward ? hasBegin : hasEnd;
    const closes = forward ? hasEnd : hasBegin;

    if (this.openedAt !== undefined) {
      this.mark(index, index);
      if (closes || index - this.openedAt >= MAX_KEY_BLOCK_LINES) this.openedAt = undefined;
      return index;
    }
    if (hasBegin || hasEnd) {
      this.mark(index, index);
      this.otherOpenedAt = undefined;
      if (opens && !closes) this.openedAt = index;
      else if (closes && !opens && this.runStart !== undefined) {
        this.mark(Math.max(this.runStart, index - MAX_KEY_BLOCK_LINES), index);
      }
      this.dropRun();
      return index;
    }

    const otherOpens = (forward ? OTHER_BEGIN_MARKER : OTHER_END_MARKER).test(line);
    const otherCloses = (forward ? OTHER_END_MARKER : OTHER_BEGIN_MARKER).test(line);
    if (this.otherOpenedAt !== undefined) {
      if (otherCloses || index - this.otherOpenedAt >= MAX_KEY_BLOCK_LINES) this.otherOpenedAt = undefined;
      return index;
    }
    if (otherOpens || otherCloses) {
      if (otherOpens && !otherCloses) this.otherOpenedAt = index;
      // The run read just before a certificate's closing marker was its body, not a key's.
      this.dropRun();
      return index;
    }

    // The short line was not followed by a marker: the run ended before it.
    if (this.shortLineAfterRun) this.endRun();
    if (!BODY_LINE.test(line)) {
      if (this.runStart !== undefined && SHORT_LAST_LINE.test(line)) this.shortLineAfterRun = true;
      else this.endRun();
      return index;
    }
    this.runStart ??= index;
    this.runEnd = index;
    if (FULL_WIDTH_LINE.test(line)) this.fullWidthInRun += 1;
    return index;
  }

  /** The last lines read look like key body with no marker yet: a closing marker may still follow. */
  inBodyRun(): boolean {
    return this.runStart !== undefined;
  }

  /** Call after the last line: settles the run of body lines read last. */
  finish(): void {
    this.endRun();
  }

  /**
   * Call instead of finish when reading stops before the end: the body lines read last may belong to a
   * closing marker that was never reached, so they count as inside.
   */
  stopEarly(): void {
    if (this.runStart !== undefined) this.mark(this.runStart, this.runEnd);
    this.dropRun();
  }

  isInside(index: number): boolean {
    return this.ranges.some(([first, last]) => index >= first && index <= last);
  }

  /** The ranges found so far, in the order they were found; they may overlap. */
  insideRanges(): readonly LineRange[] {
    return this.ranges;
  }

  /** A run of body lines ended without a marker: key material if it held two full-width lines. */
  private endRun(): void {
    if (this.runStart !== undefined && this.fullWidthInRun >= 2) this.mark(this.runStart, this.runEnd);
    this.dropRun();
  }

  private dropRun(): void {
    this.runStart = undefined;
    this.fullWidthInRun = 0;
    this.shortLineAfterRun = false;
  }

  private mark(first: number, last: number): void {
    const previous = this.ranges.at(-1);
    if (previous && first <= previous[1] + 1 && first >= previous[0]) {
      previous[1] = Math.max(previous[1], last);
      return;
    }
    this.ranges.push([first, last]);
  }
}

/** Every line of `text` inside a key block replaced, each run of such lines by one `marker` line. */
export function redactKeyBlockLines(text: string, marker: string): string {
  if (!text.includes('\n') && !BEGIN_MARKER.test(text) && !END_MARKER.test(text)) return text;
  const lines = text.split('\n');
  const tracker = new KeyBlockTracker('forward');
  for (const line of lines) tracker.push(line);
  tracker.finish();
  const ranges = tracker.insideRanges();
  if (ranges.length === 0) return text;
  const inside = new Uint8Array(lines.length);
  for (const [first, last] of ranges) inside.fill(1, first, last + 1);
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!inside[index]) kept.push(lines[index] as string);
    else if (!inside[index - 1]) kept.push(marker);
  }
  return kept.join('\n');
}
