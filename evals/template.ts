// Fills {{name}} placeholders in scenario values with the running world's addresses and paths.
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export function fillText(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    if (!Object.hasOwn(values, name)) {
      throw new Error(
        `unknown placeholder ${whole}; the world defines ${Object.keys(values).join(', ') || 'none'}`,
      );
    }
    return values[name]!;
  });
}

const WHOLE_PLACEHOLDER = /^\{\{\s*[A-Za-z0-9_.-]+\s*\}\}$/;

/**
 * Fills every string inside a value (objects and arrays walked). A string that is one placeholder and fills to
 * a number becomes that number, so `port: '{{tcp.db.port}}'` reaches the tool as a port.
 */
export function fillValue<T>(value: T, values: Record<string, string>): T {
  if (typeof value === 'string') {
    const filled = fillText(value, values);
    return (WHOLE_PLACEHOLDER.test(value) && /^\d+$/.test(filled) ? Number(filled) : filled) as T;
  }
  if (Array.isArray(value)) return value.map((item) => fillValue(item, values)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, fillValue(item, values)]),
    ) as T;
  }
  return value;
}
