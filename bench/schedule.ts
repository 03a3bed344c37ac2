// The order the runners go in, round by round: rotated, so each runner takes each place once per cycle.
// Without it, whichever runner always went first or last would carry the machine's drift on its own.

/** Round 1 runs the names as given; each later round starts one further along (A B C, B C A, C A B, A B C…). */
export function roundOrders<Name>(names: readonly Name[], rounds: number): Name[][] {
  return Array.from({ length: rounds }, (_, round) => {
    const shift = names.length === 0 ? 0 : round % names.length;
    return [...names.slice(shift), ...names.slice(0, shift)];
  });
}
