// Block Kit's own limits, for what the neutral view does not size itself (headers, fields, button rows).
import { VIEW_LIMITS, type ViewLimits } from '../chat/view-limits.js';

export const SLACK_LIMITS = {
  /** Characters in one section's text. */
  sectionText: 3_000,
  /** Blocks in one message. */
  blocksPerMessage: 50,
  /** Characters in one section field, and fields per section. */
  fieldText: 2_000,
  fieldsPerSection: 10,
  /** Elements in one actions block, and characters in a button label. */
  actionsPerBlock: 25,
  buttonText: 75,
  headerText: 150,
  /** Top-level `text` is truncated by Slack past this. */
  messageText: 40_000,
} as const satisfies Record<string, number>;

/** The view's limits for Slack, with the file threshold a deployment may change. */
export function slackViewLimits(fileThreshold?: number): ViewLimits {
  return fileThreshold ? { ...VIEW_LIMITS.slack, attachAfterChars: fileThreshold } : VIEW_LIMITS.slack;
}
