// The reviewer before risky actions: one model call, without tools, that weighs a call waiting for approval
// against the run's evidence. It never blocks: a failure, a timeout or a reply that is not the verdict JSON is
// "unavailable (why)" on the card, and the approval goes on as it would have. The verdict is advice for a person;
// nothing reads it to decide anything.
import { formatDuration } from '../duration-text.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { isJsonObject, parseJson, unwrapFence } from '../model/json-text.js';
import type { ModelClient, ModelUsage } from '../model/model-port.js';
import type { PermissionSettings } from '../policy/permission-settings.js';
import { resolveRoles } from '../policy/resolve-roles.js';
import type { ReviewerSettings } from '../policy/reviewer-settings.js';
import { matchesAnyToolPattern } from '../policy/tool-globs.js';
import type { Redactor } from '../redaction.js';
import type { Run } from '../run.js';
import type { Timers } from '../timers.js';
import type { Tool } from '../tool.js';
import { type CallReview, REVIEW_LINE_CHARS, ReviewReplySchema } from './call-review.js';
import { type ProposedCall, reviewMessages } from './review-evidence.js';

/** The most characters of the reason a review is unavailable: the card has one line for it. */
const WHY_CHARS = 120;

export interface CallReviewerDeps {
  /** The summary model when one is set, else the main model. */
  model: ModelClient;
  settings: ReviewerSettings;
  permissions: PermissionSettings;
  redactor: Redactor;
  logger: Logger;
  timers: Timers;
}

/** A review, and what its model call cost when one answered. */
export interface ReviewResult {
  review: CallReview;
  usage?: ModelUsage;
}

export class CallReviewer {
  constructor(private readonly deps: CallReviewerDeps) {}

  /** Whether this call is reviewed: its risk is one the settings name, and neither its tool nor a role skips it. */
  applies(run: Run, tool: Tool): boolean {
    const { settings, permissions } = this.deps;
    if (!settings.enabled || !settings.risks.includes(tool.risk)) return false;
    if (matchesAnyToolPattern(settings.skip_tools, tool.name)) return false;
    const roles = resolveRoles(permissions, run.principal);
    return !roles.some((role) => settings.skip_roles.includes(role));
  }

  /**
   * The verdict, or why there is none, with the model's usage when it answered (the run counts it); never throws,
   * and takes at most the settings' timeout.
   */
  async review(run: Run, call: ProposedCall, cancel?: AbortSignal): Promise<ReviewResult> {
    const timeoutMs = this.deps.settings.timeout;
    const timeout = new AbortController();
    const timer = this.deps.timers.setTimeout(
      () => timeout.abort(new Error(`no answer within ${formatDuration(timeoutMs)}`)),
      timeoutMs,
    );
    const signal = cancel ? AbortSignal.any([cancel, timeout.signal]) : timeout.signal;
    try {
      const reply = await abortable(
        this.deps.model.complete({
          messages: reviewMessages(run, call, this.deps.redactor),
          tools: [],
          signal,
        }),
        signal,
      );
      return { review: this.verdictOf(reply.content ?? ''), usage: reply.usage };
    } catch (error) {
      const why = signal.aborted ? errorMessage(signal.reason) : errorMessage(error);
      this.deps.logger.warn({ runId: run.id, tool: call.tool, err: why }, 'the call review is unavailable');
      return { review: this.unavailable(why) };
    } finally {
      this.deps.timers.clearTimeout(timer);
    }
  }

  private verdictOf(content: string): CallReview {
    const parsed = parseJson(unwrapFence(content));
    if (!parsed.ok || !isJsonObject(parsed.value))
      return this.unavailable('the reply was not the verdict JSON');
    const reply = ReviewReplySchema.safeParse(parsed.value);
    if (!reply.success) return this.unavailable('the reply was not a verdict with one or two reasons');
    return {
      kind: 'verdict',
      verdict: reply.data.verdict,
      reasons: reply.data.reasons.map((reason) => clip(this.deps.redactor.redact(reason), REVIEW_LINE_CHARS)),
    };
  }

  private unavailable(why: string): CallReview {
    return { kind: 'unavailable', why: clip(this.deps.redactor.redact(why), WHY_CHARS) };
  }
}

/** Settles at the abort even if the client were slow to notice it: the card waits no longer than the timeout. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function clip(text: string, chars: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > chars ? `${line.slice(0, chars - 1)}…` : line;
}

export type { ProposedCall } from './review-evidence.js';
