// Long work in chunks that take turns: one chunk per turn of the event loop across every caller, so requests
// (/healthz, a Slack ack) are read and answered between any two chunks, however many long jobs run at once.

/** Resolves on a later turn of the event loop, after pending I/O callbacks (setImmediate, not a microtask). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Hands out turns one at a time. Yielding alone is not enough: 30 replays that each yield between chunks still
 * run 30 chunks in every turn, and a request then waits 30 chunks for each step of its own (accept, read, answer).
 */
export class TurnQueue {
  private last: Promise<void> = Promise.resolve();

  /** Resolves when it is this caller's turn: one turn after the caller before it got its own. */
  take(): Promise<void> {
    const mine = this.last.then(nextTurn);
    this.last = mine;
    return mine;
  }
}

/** The process's one queue: sharing it is what keeps the chunks of different requests from piling into one turn. */
export const sharedTurns = new TurnQueue();

/**
 * Maps `items` in order, `chunkSize` at a time, each chunk on a turn of its own from `turns`. Within a chunk the
 * calls run together, as Promise.all would run them.
 */
export async function mapInChunks<Item, Result>(
  items: readonly Item[],
  chunkSize: number,
  map: (item: Item) => Result | Promise<Result>,
  turns: TurnQueue = sharedTurns,
): Promise<Result[]> {
  const results: Result[] = [];
  for (let start = 0; start < items.length; start += chunkSize) {
    await turns.take();
    results.push(...(await Promise.all(items.slice(start, start + chunkSize).map(map))));
  }
  return results;
}
