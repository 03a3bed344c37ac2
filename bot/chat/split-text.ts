// Splits long text to a platform's size limits without losing a character, and groups blocks into messages.

const FENCE = '```';

export interface SplitOptions {
  /** The most a chunk may weigh, fences included. */
  max: number;
  /**
   * What one character costs once the platform has escaped it (Slack writes `<` as `&lt;`, four characters).
   * Splitting before escaping with these weights keeps every escaped chunk within `max`, and never cuts an
   * escape in half.
   */
  weight?: (character: string) => number;
}

/**
 * Splits text into chunks weighing at most `max`, at line breaks when it can. A code block cut in two is closed
 * at the end of one chunk and reopened in the next, so both halves still render as code.
 */
export function splitText(text: string, options: SplitOptions): string[] {
  const weigh = weigher(options.weight);
  if (weigh(text) <= options.max) return [text];
  const room = options.max - (FENCE.length + 1) * 2;
  if (room < 1) throw new Error(`Cannot split text into chunks of ${options.max}`);
  const chunks: string[] = [];
  let current: string | undefined;
  let currentWeight = 0;
  let inFence = false;
  let openedInFence = false;
  const flush = () => {
    if (current === undefined) return;
    const closed = inFence ? `${current}\n${FENCE}` : current;
    chunks.push(openedInFence ? `${FENCE}\n${closed}` : closed);
    current = undefined;
    currentWeight = 0;
    openedInFence = inFence;
  };
  for (const line of hardWrap(text.split('\n'), room, weigh)) {
    const lineWeight = weigh(line);
    if (current !== undefined && currentWeight + 1 + lineWeight > room) flush();
    if (current === undefined) {
      current = line;
      currentWeight = lineWeight;
    } else {
      current = `${current}\n${line}`;
      currentWeight += 1 + lineWeight;
    }
    if (countFences(line) % 2 === 1) inFence = !inFence;
  }
  flush();
  return chunks;
}

function weigher(weight: SplitOptions['weight']): (text: string) => number {
  if (!weight) return (text) => text.length;
  return (text) => {
    let total = 0;
    for (const character of text) total += weight(character);
    return total;
  };
}

function countFences(line: string): number {
  return line.split(FENCE).length - 1;
}

/** Lines heavier than a chunk are cut into pieces that fit; a surrogate pair is never cut in half. */
function hardWrap(lines: string[], room: number, weigh: (text: string) => number): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (weigh(line) <= room) {
      out.push(line);
      continue;
    }
    let piece = '';
    let pieceWeight = 0;
    for (const character of line) {
      const characterWeight = weigh(character);
      if (pieceWeight + characterWeight > room && piece !== '') {
        out.push(piece);
        piece = '';
        pieceWeight = 0;
      }
      piece += character;
      pieceWeight += characterWeight;
    }
    out.push(piece);
  }
  return out;
}

export interface PageLimits {
  /** Items per page (Slack: 50 blocks per message; Discord: 10 embeds). */
  items: number;
  /** Total size per page (Slack: 40,000 characters; Discord: 6,000 across embeds). */
  size: number;
}

/** Groups items into pages within both limits, in order; an item larger than a page gets a page of its own. */
export function paginate<T>(items: readonly T[], limits: PageLimits, sizeOf: (item: T) => number): T[][] {
  const pages: T[][] = [];
  let page: T[] = [];
  let pageSize = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (page.length > 0 && (page.length >= limits.items || pageSize + size > limits.size)) {
      pages.push(page);
      page = [];
      pageSize = 0;
    }
    page.push(item);
    pageSize += size;
  }
  pages.push(page);
  return pages;
}

/** Cuts text to a limit with an ellipsis, for labels, headings and cells. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
