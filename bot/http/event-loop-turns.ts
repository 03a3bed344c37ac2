// Long loops give the event loop back between chunks, so /healthz and other requests are answered meanwhile.

/** Resolves on a later turn of the event loop, after pending I/O callbacks (setImmediate, not a microtask). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Maps `items` in order, `chunkSize` at a time, yielding to the event loop between chunks. Within a chunk the
 * calls run together, as Promise.all would run them.
 */
export async function mapInChunks<Item, Result>(
  items: readonly Item[],
  chunkSize: number,
  map: (item: Item) => Result | Promise<Result>,
): Promise<Result[]> {
  const results: Result[] = [];
  for (let start = 0; start < items.length; start += chunkSize) {
    if (start > 0) await nextTurn();
    results.push(...(await Promise.all(items.slice(start, start + chunkSize).map(map))));
  }
  return results;
}
