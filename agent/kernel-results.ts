// What the kernel's commands answer to the people who gave them.
import type { DecideResult } from './policy/approval-outcomes.js';
import type { Run } from './run.js';

export interface ApprovalClickResult {
  /** What to tell the person who clicked (an ephemeral reply on chat platforms). */
  message: string;
  /** False when the click changed nothing: refused, late, unknown. */
  settled: boolean;
  result: DecideResult;
}

export interface CancelResult {
  run: Run;
  /** What to tell the person who asked: cancelled now, or at the run's next step. */
  message: string;
}
