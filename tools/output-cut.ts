// Where to cut kept output so that no line, or at least no word, is shown in part: a secret cut in two is
// recognisable by neither half, so the part next to the cut is dropped instead of shown.

/** How far a cut moves, at most, to reach a line or word boundary. */
export const MAX_CUT_SHIFT_BYTES = 4096;

const NEWLINE = 0x0a;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === NEWLINE || byte === 0x0d;
}

function shiftLimit(length: number): number {
  return Math.min(MAX_CUT_SHIFT_BYTES, Math.floor(length / 2));
}

/**
 * The kept part of `head`, the start of a longer output whose next byte is `nextByte` (undefined: nothing
 * follows). All of it when it ends a line; else up to its last newline, or failing that up to its last space
 * (all of it when the cut already falls between words), when that is at most MAX_CUT_SHIFT_BYTES back.
 */
export function cutHead(head: Buffer, nextByte: number | undefined): Buffer {
  if (head.length === 0 || nextByte === undefined || nextByte === NEWLINE || head.at(-1) === NEWLINE)
    return head;
  const lowest = head.length - shiftLimit(head.length);
  const newline = head.lastIndexOf(NEWLINE);
  if (newline >= lowest) return head.subarray(0, newline + 1);
  if (isSpace(nextByte)) return head;
  for (let index = head.length - 1; index >= lowest; index--) {
    if (isSpace(head[index])) return head.subarray(0, index + 1);
  }
  return head;
}

/**
 * The kept part of `tail`, the end of a longer output whose byte before it is `previousByte` (undefined:
 * nothing comes before). All of it when it starts a line; else from after its first newline, or failing that
 * its first space (all of it when the cut already falls between words), when that is near the start.
 */
export function cutTail(tail: Buffer, previousByte: number | undefined): Buffer {
  if (tail.length === 0 || previousByte === undefined || previousByte === NEWLINE) return tail;
  const highest = shiftLimit(tail.length);
  const newline = tail.indexOf(NEWLINE);
  if (newline !== -1 && newline < highest) return tail.subarray(newline + 1);
  if (isSpace(previousByte)) return tail;
  for (let index = 0; index < highest; index++) {
    if (isSpace(tail[index])) return tail.subarray(index + 1);
  }
  return tail;
}

/**
 * `text` cut to at most `limit` characters, one line of it or text with its whitespace collapsed: when the cut
 * falls inside a word, the partial word is dropped too, if a space comes at most MAX_CUT_SHIFT_BYTES before.
 */
export function cutTextEnd(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const kept = text.slice(0, limit);
  if (/\s/.test(text.charAt(limit))) return kept;
  const lowest = limit - Math.min(MAX_CUT_SHIFT_BYTES, Math.floor(limit / 2));
  for (let index = limit - 1; index >= lowest; index--) {
    if (/\s/.test(kept.charAt(index))) return kept.slice(0, index + 1);
  }
  return kept;
}
