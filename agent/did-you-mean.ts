// "Did you mean" suggestions for misspelt setting keys, role names and values, by edit distance.

/** Optimal string alignment distance: Levenshtein plus swapped neighbours, the commonest typo. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  for (let row = 1; row < rows; row++) {
    for (let column = 1; column < columns; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let best = Math.min(
        table[row - 1]![column]! + 1,
        table[row]![column - 1]! + 1,
        table[row - 1]![column - 1]! + cost,
      );
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) {
        best = Math.min(best, table[row - 2]![column - 2]! + 1);
      }
      table[row]![column] = best;
    }
  }
  return table[a.length]![b.length]!;
}

/** The closest candidate, if it is close enough to be a likely typo rather than a different word. */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  const wanted = word.toLowerCase();
  // A third of the word's length: "risk" → "risks" matches, "foo" → "tools" does not.
  const tolerance = Math.max(1, Math.floor(wanted.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= tolerance ? best : undefined;
}

/** ` (did you mean "x"?)`, or nothing, ready to append to a message. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = closestMatch(word, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}
