// Two texts in two columns, old on the left and new on the right, lines aligned so that only what differs is
// marked: `-` on the left for a line that went, `+` on the right for one that came, both for one that changed.

interface AlignedRow {
  left: string | undefined;
  right: string | undefined;
  same: boolean;
}

/** Longest common subsequence alignment; past this many lines a side, lines are paired in order instead. */
const MAX_ALIGNED_LINES = 2_000;

export function alignLines(before: readonly string[], after: readonly string[]): AlignedRow[] {
  if (before.length > MAX_ALIGNED_LINES || after.length > MAX_ALIGNED_LINES)
    return pairInOrder(before, after);
  const common: number[][] = Array.from({ length: before.length + 1 }, () =>
    new Array<number>(after.length + 1).fill(0),
  );
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      common[i]![j] =
        before[i] === after[j]
          ? common[i + 1]![j + 1]! + 1
          : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const rows: AlignedRow[] = [];
  let removed: string[] = [];
  let added: string[] = [];
  const flush = () => {
    rows.push(...pairInOrder(removed, added));
    removed = [];
    added = [];
  };
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    if (i < before.length && j < after.length && before[i] === after[j]) {
      flush();
      rows.push({ left: before[i], right: after[j], same: true });
      i++;
      j++;
    } else if (j >= after.length || (i < before.length && common[i + 1]![j]! >= common[i]![j + 1]!)) {
      removed.push(before[i]!);
      i++;
    } else {
      added.push(after[j]!);
      j++;
    }
  }
  flush();
  return rows;
}

/** A changed run: the k-th line that went beside the k-th that came. */
function pairInOrder(before: readonly string[], after: readonly string[]): AlignedRow[] {
  return Array.from({ length: Math.max(before.length, after.length) }, (_, index) => ({
    left: before[index],
    right: after[index],
    same: false,
  }));
}

function wrap(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += width) pieces.push(text.slice(start, start + width));
  return pieces;
}

export interface SideBySideOptions {
  /** The width of each column's text, without its mark. */
  width: number;
  leftTitle: string;
  rightTitle: string;
}

/** The two texts as lines of `  old │   new`, titled, long lines wrapped within their column. */
export function sideBySide(before: string, after: string, options: SideBySideOptions): string[] {
  const { width } = options;
  const column = (mark: string, text: string) => `${mark} ${text}`.padEnd(width + 2);
  const lines = [`${column(' ', options.leftTitle)} │ ${column(' ', options.rightTitle)}`.trimEnd()];
  lines.push(`${'─'.repeat(width + 2)}─┼─${'─'.repeat(width + 2)}`);
  for (const row of alignLines(before.split('\n'), after.split('\n'))) {
    const left = row.left === undefined ? [] : wrap(row.left, width);
    const right = row.right === undefined ? [] : wrap(row.right, width);
    const leftMark = row.same || row.left === undefined ? ' ' : '-';
    const rightMark = row.same || row.right === undefined ? ' ' : '+';
    for (let index = 0; index < Math.max(left.length, right.length); index++) {
      const leftText = left[index];
      const rightText = right[index];
      const shownLeft =
        leftText === undefined ? ''.padEnd(width + 2) : column(index === 0 ? leftMark : ' ', leftText);
      const shownRight = rightText === undefined ? '' : column(index === 0 ? rightMark : ' ', rightText);
      lines.push(`${shownLeft} │ ${shownRight}`.trimEnd());
    }
  }
  return lines;
}
