// What an approver is told will happen: the exact command the call runs, and the tool's own impact line.
import { maskSecretValues, secretValuesOf } from '../policy/secret-arguments.js';
import type { Redactor } from '../redaction.js';
import type { PendingApproval } from '../run.js';
import type { Tool } from '../tool.js';

export type CallPreview = Pick<PendingApproval, 'willRun' | 'impact'>;

/** Redacted as the arguments are, declared secrets masked: the command line holds the same values. */
export function callPreview(tool: Tool, args: Record<string, unknown>, redactor: Redactor): CallPreview {
  const described = describedCall(tool, args);
  const willRun =
    described === undefined ? undefined : maskSecretValues(described, secretValuesOf(tool, args));
  return {
    ...(willRun ? { willRun: redactor.redact(willRun) } : {}),
    ...(tool.impact ? { impact: redactor.redact(tool.impact) } : {}),
  };
}

/** The preview a waiting run keeps, for its card when it is built again. */
export function previewOf(approval: PendingApproval): CallPreview {
  return {
    ...(approval.willRun ? { willRun: approval.willRun } : {}),
    ...(approval.impact ? { impact: approval.impact } : {}),
  };
}

function describedCall(tool: Tool, args: Record<string, unknown>): string | undefined {
  try {
    return tool.describeCall?.(args);
  } catch {
    // The card is still posted, without the line: the arguments beside it say what the call is.
    return undefined;
  }
}
