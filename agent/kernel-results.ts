// What the kernel's commands answer to the people who gave them.
import type { Conversation } from './conversation.js';
import type { Grant } from './policy/approval-grants.js';
import type { DecideResult } from './policy/approval-outcomes.js';
import type { Run } from './run.js';

export interface ApprovalClickResult {
  /** What to tell the person who clicked (an ephemeral reply on chat platforms). */
  message: string;
  /** False when the click changed nothing: refused, late, unknown. */
  settled: boolean;
  result: DecideResult;
  /** The grant made with this approval, when it was approved for a while. */
  grant?: Grant;
}

/** What `decideApproval` may be asked beyond the decision: approve for a while (a grant), for this long. */
export interface DecideOptions {
  grantForMs?: number;
  /** With `grantForMs`: the name of a pattern the card offered, so the grant covers its values too. */
  grantPattern?: string;
  /**
   * Where a chat click came from: it decides only in the card's own conversation (`clickPlaceRefusal`). Absent
   * for the CLI's `opsbot approve`, which names the approval by its id and is not a click on a card.
   */
  clickedIn?: Conversation;
}

/** The answer to ending a grant: done, or refused and why. */
export interface GrantResult {
  ok: boolean;
  message: string;
  grant?: Grant;
}

export interface CancelResult {
  run: Run;
  /** What to tell the person who asked: cancelled now, or at the run's next step. */
  message: string;
}
