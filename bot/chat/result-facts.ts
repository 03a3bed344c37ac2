// A tool's plain values as facts people read: a label written for people, the value with its unit, and a tone
// that comes from what the field means ("Timed out: no" is good news), never from whether the value is false.
import { formatBytes } from '../../tools/call-limits.js';
import { readableDuration } from '../../tools/system-stats.js';

/** One value of a tool's data as views show it: nested values are already flattened to text. */
export type ViewCell = string | number | boolean | null;

/** good and bad colour a fact; a fact without a tone is shown plainly. */
export type FactTone = 'good' | 'bad';

export interface ResultFact {
  /** The data's own key (or `load`, `memory` for a summarized group); adapters may use it for a percent bar. */
  key: string;
  label: string;
  /** The value as the tool gave it. */
  value: ViewCell;
  /** The value as people read it: with its unit, `yes`/`no`, a duration, a size. */
  text: string;
  tone?: FactTone;
}

/**
 * What a yes/no field means, by its name. Tools name their fields plainly (`timed_out`, `connected`), so the
 * name says which answer is the good one; a boolean that is not listed here is shown without a colour.
 */
const GOOD_WHEN: Readonly<Record<string, boolean>> = {
  ok: true,
  connected: true,
  status_ok: true,
  body_match: true,
  authorized: true,
  chain_verified: true,
  identity_verified: true,
  hostname_matches: true,
  valid: true,
  running: true,
  found: true,
  healthy: true,
  timed_out: false,
  cancelled: false,
  flooded: false,
  expired: false,
  refused: false,
  output_truncated: false,
  self_signed: false,
  complete: true,
};

/** Fields that are empty when all went well: a value in them is the problem. */
const PROBLEMS = new Set(['error', 'error_code', 'verify_error']);

/** Labels that humanizing a key would get wrong. */
const LABELS: Readonly<Record<string, string>> = {
  cpus: 'CPUs',
  uptime: 'Up for',
  uptime_seconds: 'Up for',
  exit_code: 'Exit code',
  status_ok: 'Status OK',
  load: 'Load (1, 5, 15 min)',
  per_cpu_one: 'Load per CPU',
};

const ACRONYMS = new Set(['cpu', 'url', 'ip', 'dns', 'tls', 'http', 'id', 'pid', 'ttl', 'tcp', 'ok', 'ssl']);

/** Unit suffixes: the label drops them and the value carries them. */
const UNITS: readonly [suffix: string, format: (value: number) => string][] = [
  ['_ms', (value) => `${value.toLocaleString('en-US')} ms`],
  ['_seconds', (value) => readableDuration(value)],
  ['_bytes', (value) => formatBytes(value)],
  ['_percent', (value) => `${value}%`],
  ['_days', (value) => `${value.toLocaleString('en-US')} days`],
];

/** A key as a label: `latency_ms` → `Latency`, `cpus` → `CPUs`, `final_url` → `Final URL`. */
export function factLabel(key: string): string {
  const known = LABELS[key];
  if (known) return known;
  const unit = UNITS.find(([suffix]) => key.endsWith(suffix) && key.length > suffix.length);
  const bare = unit ? key.slice(0, -unit[0].length) : key;
  const words = bare.split(/[_\s]+/).filter(Boolean);
  const text = words
    .map((word) => (ACRONYMS.has(word.toLowerCase()) ? word.toUpperCase() : word.toLowerCase()))
    .join(' ')
    .replace(/\bCPUs?\b/gi, (match) => (match.length === 4 ? 'CPUs' : 'CPU'));
  // `inodes_percent` is a share, not a count of inodes: the label says so.
  const share = unit?.[0] === '_percent' ? ' %' : '';
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${share}`;
}

/** Which answer of a yes/no field is the good one, when its name says so. */
export function goodWhen(key: string): boolean | undefined {
  return Object.hasOwn(GOOD_WHEN, key) ? GOOD_WHEN[key] : undefined;
}

/** The tone a value has, by what its field means. */
export function factTone(key: string, value: ViewCell): FactTone | undefined {
  const good = goodWhen(key);
  if (typeof value === 'boolean' && good !== undefined) return value === good ? 'good' : 'bad';
  if (key === 'exit_code' && typeof value === 'number') return value === 0 ? 'good' : 'bad';
  if (PROBLEMS.has(key) && typeof value === 'string' && value !== '') return 'bad';
  return undefined;
}

/** A value as people read it. */
export function factText(key: string, value: ViewCell): string {
  if (value === null || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') {
    const unit = UNITS.find(([suffix]) => key.endsWith(suffix));
    if (unit) return unit[1](value);
    if (key === 'percent') return `${value}%`;
    return value.toLocaleString('en-US');
  }
  return value;
}

export function fact(key: string, value: ViewCell): ResultFact {
  const tone = factTone(key, value);
  return { key, label: factLabel(key), value, text: factText(key, value), ...(tone ? { tone } : {}) };
}

/**
 * A group of numbers that reads as one fact: load averages (`{one, five, fifteen}`), or a use of something
 * (`{percent, used, total}` or their `_bytes`), as system_stats and similar tools report them.
 */
export function groupFact(key: string, value: Record<string, unknown>): ResultFact | undefined {
  const { one, five, fifteen } = value;
  if ([one, five, fifteen].every((part) => typeof part === 'number')) {
    const text = `${one} / ${five} / ${fifteen}`;
    return { key, label: LABELS[key] ?? `${factLabel(key)} (1, 5, 15 min)`, value: text, text };
  }
  const percent = value.percent;
  if (typeof percent !== 'number') return undefined;
  const size = (name: string): string | undefined => {
    const readable = value[name];
    if (typeof readable === 'string') return readable;
    const bytes = value[`${name}_bytes`];
    return typeof bytes === 'number' ? formatBytes(bytes) : undefined;
  };
  const used = size('used');
  const total = size('total');
  if (value.total_bytes === 0) return { key, label: factLabel(key), value: 'none', text: 'none' };
  const text = `${percent}% used${used && total ? ` (${used} of ${total})` : ''}`;
  return { key, label: factLabel(key), value: percent, text };
}
