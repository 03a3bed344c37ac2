// Slack's message limits, and the splitting that keeps long mrkdwn inside them without losing a character.

export const SLACK_LIMITS = {
  /** Characters in one section's text. */
  sectionText: 3_000,
  /** Blocks in one message. */
  blocksPerMessage: 50,
  /** Characters in one section field, and fields per section. */
  fieldText: 2_000,
  fieldsPerSection: 10,
  /** Elements in one actions block, and characters in a button label. */
  actionsPerBlock: 25,
  buttonText: 75,
  headerText: 150,
  /** Top-level `text` is truncated by Slack past this. */
  messageText: 40_000,
} as const satisfies Record<string, number>;

const FENCE = '```';

/**
 * Splits mrkdwn into chunks of at most `max` characters, at line breaks when it can. A code block cut in two is
 * closed at the end of one chunk and reopened in the next, so both halves still render as code.
 */
export function splitMrkdwn(text: string, max: number = SLACK_LIMITS.sectionText): string[] {
  if (text.length <= max) return [text];
  const room = max - (FENCE.length + 1) * 2;
  const chunks: string[] = [];
  let current = '';
  let inFence = false;
  let openedInFence = false;
  const flush = () => {
    if (current === '') return;
    const closed = inFence ? `${current}\n${FENCE}` : current;
    chunks.push(openedInFence ? `${FENCE}\n${closed}` : closed);
    current = '';
    openedInFence = inFence;
  };
  for (const line of hardWrap(text.split('\n'), room)) {
    const candidate = current === '' ? line : `${current}\n${line}`;
    if (candidate.length > room) {
      flush();
      current = line;
    } else {
      current = candidate;
    }
    if (countFences(line) % 2 === 1) inFence = !inFence;
  }
  flush();
  return chunks;
}

function countFences(line: string): number {
  return line.split(FENCE).length - 1;
}

/** Lines longer than a chunk are cut, never inside an `&amp;`-style entity that would then show raw. */
function hardWrap(lines: string[], room: number): string[] {
  const out: string[] = [];
  for (const line of lines) {
    let rest = line;
    while (rest.length > room) {
      let piece = rest.slice(0, room);
      const entity = /&[a-z]{0,4}$/.exec(piece);
      if (entity) piece = piece.slice(0, entity.index);
      out.push(piece);
      rest = rest.slice(piece.length);
    }
    out.push(rest);
  }
  return out;
}

/** Groups blocks into messages of at most 50 blocks each. */
export function paginateBlocks<T>(blocks: T[], perMessage: number = SLACK_LIMITS.blocksPerMessage): T[][] {
  const pages: T[][] = [];
  for (let index = 0; index < blocks.length; index += perMessage) {
    pages.push(blocks.slice(index, index + perMessage));
  }
  return pages.length > 0 ? pages : [[]];
}

/** Cuts plain text to a limit with an ellipsis, for labels and headers. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
