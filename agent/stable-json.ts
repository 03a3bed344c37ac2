// JSON with object keys sorted at every depth, so equal values always serialize, hash and compare the same.

export function stableJson(value: unknown): string {
  const seen = new Set<object>();
  const walk = (item: unknown): unknown => {
    if (item === null || typeof item !== 'object') return typeof item === 'bigint' ? item.toString() : item;
    const withJson = item as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return walk(withJson.toJSON());
    if (seen.has(item)) throw new TypeError('stableJson: the value contains a cycle');
    seen.add(item);
    const result = Array.isArray(item)
      ? item.map((element) => (element === undefined ? null : walk(element)))
      : Object.fromEntries(
          Object.keys(item)
            .sort()
            .map((key) => [key, walk((item as Record<string, unknown>)[key])]),
        );
    seen.delete(item);
    return result;
  };
  return JSON.stringify(walk(value)) ?? 'null';
}
