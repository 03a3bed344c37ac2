// Whether the kernel reviews risky calls, and with which model: only with approvals set up, a model configured
// and `permissions.reviewer.enabled`; the summary model when one is set, else the main model.
import type { KernelOptions } from '../kernel-options.js';
import type { Logger } from '../logger.js';
import type { Redactor } from '../redaction.js';
import type { Timers } from '../timers.js';
import { CallReviewer } from './call-reviewer.js';

export function reviewerFor(
  options: Pick<KernelOptions, 'approvals' | 'model' | 'summaryModel'>,
  deps: { redactor: Redactor; logger: Logger; timers: Timers },
): { reviewer?: CallReviewer } {
  const model = options.summaryModel ?? options.model;
  const permissions = options.approvals?.permissions;
  // A hand-built settings object (tests, embedders) may have no reviewer section: no review then.
  const settings = permissions?.reviewer;
  if (!model || !permissions || !settings?.enabled) return {};
  return { reviewer: new CallReviewer({ model, settings, permissions, ...deps }) };
}
