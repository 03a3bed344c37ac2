// Reads the timestamp a log line starts with (ISO 8601, syslog, Apache/nginx), and parses `since`.

const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};

// 2024-05-01T12:34:56.789Z, 2024-05-01 12:34:56,789 +02:00, [2024-05-01 12:34:56]
const ISO =
  /^\[?(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s?(Z|[+-]\d{2}:?\d{2})?/i;
// May  1 12:34:56 (classic syslog, no year)
const SYSLOG = /^\[?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\s+(\d{1,2}) (\d{2}):(\d{2}):(\d{2})/i;
// 127.0.0.1 - - [10/Oct/2024:13:55:36 -0700] (common/combined log format, near the start)
const COMMON_LOG = /^.{0,100}?\[(\d{2})\/([a-z]{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-]\d{2})(\d{2})\]/i;

function offsetMinutes(zone: string): number {
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

/**
 * Epoch ms of the timestamp at the start of `line`, or undefined when there is none. A time without a zone is
 * taken as the machine's local time, as the logs of this machine are written.
 */
export function leadingTimestamp(line: string, nowMs: number): number | undefined {
  const iso = ISO.exec(line);
  if (iso) {
    const [, year, month, day, hour, minute, second, fraction = '0', zone] = iso;
    const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
    const parts = [
      Number(year),
      Number(month) - 1,
      Number(day),
      Number(hour),
      Number(minute),
      Number(second),
      ms,
    ] as const;
    if (!zone) return new Date(...parts).getTime();
    const utc = Date.UTC(...parts);
    return zone.toUpperCase() === 'Z' ? utc : utc - offsetMinutes(zone) * 60_000;
  }
  const syslog = SYSLOG.exec(line);
  if (syslog) {
    const [, month = '', day, hour, minute, second] = syslog;
    const year = new Date(nowMs).getFullYear();
    const at = (y: number) =>
      new Date(
        y,
        MONTHS[month.toLowerCase()] ?? 0,
        Number(day),
        Number(hour),
        Number(minute),
        Number(second),
      ).getTime();
    // Syslog has no year: a date more than a day ahead must be from last year (a December line read in January).
    const thisYear = at(year);
    return thisYear > nowMs + 86_400_000 ? at(year - 1) : thisYear;
  }
  const common = COMMON_LOG.exec(line);
  if (common) {
    const [, day, month = '', year, hour, minute, second, zoneHours = '+00', zoneMinutes = '00'] = common;
    const utc = Date.UTC(
      Number(year),
      MONTHS[month.toLowerCase()] ?? 0,
      Number(day),
      Number(hour),
      Number(minute),
      Number(second),
    );
    return utc - offsetMinutes(`${zoneHours}${zoneMinutes}`) * 60_000;
  }
  return undefined;
}

const RELATIVE_UNITS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** `since` as epoch ms: a relative age (30s, 15m, 2h, 1d, 1w) or an ISO 8601 time. Throws on anything else. */
export function parseSince(text: string, nowMs: number): number {
  const trimmed = text.trim();
  const relative = /^(\d+)\s*(s|m|h|d|w)$/i.exec(trimmed);
  if (relative)
    return nowMs - Number(relative[1]) * (RELATIVE_UNITS[(relative[2] ?? 's').toLowerCase()] ?? 1000);
  if (/^\d{4}-\d{2}-\d{2}/.test(trimmed)) {
    const parsed = leadingTimestamp(trimmed, nowMs) ?? Date.parse(trimmed);
    if (Number.isFinite(parsed)) return parsed;
  }
  throw new Error(
    `since must be a relative age like 15m, 2h or 1d, or an ISO time like 2024-05-01T12:00:00Z`,
  );
}
