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

/** The world's values as placeholders, longest value first, so a URL is named before the port inside it. */
function byLength(values: Record<string, string>): Array<[string, string]> {
  return Object.entries(values)
    .filter(([, value]) => value.length > 0)
    .sort(([, a], [, b]) => b.length - a.length);
}

/** The reverse of fillText: every world value in the text becomes its placeholder again. */
export function unfillText(text: string, values: Record<string, string>): string {
  let result = text;
  for (const [name, value] of byLength(values)) result = result.split(value).join(`{{${name}}}`);
  return result;
}

/**
 * The reverse of fillValue, for recording a live model's replies: strings are unfilled, and a number equal to a
 * world value (a port) becomes its placeholder, which fillValue turns back into a number.
 */
export function unfillValue<T>(value: T, values: Record<string, string>): T {
  if (typeof value === 'string') return unfillText(value, values) as T;
  if (typeof value === 'number') {
    const named = byLength(values).find(([, text]) => text === String(value));
    return (named ? `{{${named[0]}}}` : value) as T;
  }
  if (Array.isArray(value)) return value.map((item) => unfillValue(item, values)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, unfillValue(item, values)]),
    ) as T;
  }
  return value;
}
