// Slack's `<!date^…>` shows each reader the time in their own zone, with readable UTC as the fallback.
import { readableUtc } from '../chat/view-time.js';

/** Slack renders this in the reader's zone; other clients show the UTC fallback after the `|`. */
export function slackDate(ms: number): string {
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} at {time}|${readableUtc(ms)}>`;
}
