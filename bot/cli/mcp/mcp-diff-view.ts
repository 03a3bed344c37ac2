// `opsbot mcp diff` as the terminal shows it: for each changed or new tool, each field that differs, the trusted
// definition on the left and the listed one on the right.
import { stableJson } from '../../../agent/stable-json.js';
import { readableUtc } from '../../../agent/utc-time.js';
import { pinDiff } from '../../../tools/mcp/mcp-pins.js';
import type { McpToolReview } from '../../../tools/mcp/mcp-tool-review.js';
import { sideBySide } from '../side-by-side.js';
import { bold, yellow } from '../terminal-output.js';

const COLUMN_WIDTH = 56;

/** A field as lines people can compare: text as written, JSON pretty-printed with its keys in order. */
function fieldText(value: unknown): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'string') return value === '' ? '(empty)' : value;
  return JSON.stringify(JSON.parse(stableJson(value)), null, 2);
}

function heading(review: McpToolReview): string {
  const { standing, pin } = review;
  if (standing.kind === 'new')
    return `${bold(review.name)}: ${yellow('new')} on ${review.server}, never trusted`;
  const since = pin ? ` since ${pin.trustedBy} trusted it on ${readableUtc(pin.trustedAt)}` : '';
  const fields =
    standing.kind === 'changed' ? standing.fields.map((f) => (f === 'inputSchema' ? 'input schema' : f)) : [];
  return `${bold(review.name)}: ${yellow('changed')} (${fields.join(', ')})${since}`;
}

/** One tool's fields side by side; a new tool shows each of its fields beside "(none)". */
export function formatToolDiff(review: McpToolReview): string {
  const lines = [heading(review)];
  for (const field of pinDiff(review.pin?.definition, review.definition)) {
    lines.push('', `  ${field.label}:`);
    const rows = sideBySide(fieldText(field.old), fieldText(field.new), {
      width: COLUMN_WIDTH,
      leftTitle: review.pin ? 'trusted' : 'trusted (nothing)',
      rightTitle: 'listed now',
    });
    lines.push(...rows.map((row) => `    ${row}`));
  }
  return lines.join('\n');
}

/** For `--json`: each tool's fields, old and new, as data. */
export function toolDiffJson(review: McpToolReview): unknown {
  return {
    name: review.name,
    tool: review.tool,
    state: review.standing.kind,
    ...(review.pin
      ? { trustedBy: review.pin.trustedBy, trustedAt: new Date(review.pin.trustedAt).toISOString() }
      : {}),
    fields: pinDiff(review.pin?.definition, review.definition).map((field) => ({
      field: field.field,
      old: field.old ?? null,
      new: field.new ?? null,
    })),
  };
}
