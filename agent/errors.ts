// Kernel failures as typed errors with stable codes, split into the caller's mistakes and the system's faults.

export const ErrorCode = {
  InvalidSettings: 'opsbot_invalid_settings',
  InvalidTool: 'opsbot_invalid_tool',
  InvalidTask: 'opsbot_invalid_task',
  RunNotFound: 'opsbot_run_not_found',
  RunNotWaiting: 'opsbot_run_not_waiting',
  RunBusy: 'opsbot_run_busy',
  /** The run is in a state where this cannot happen to it (cancelled, finished, waiting for something else). */
  RunWrongState: 'opsbot_run_wrong_state',
  /** A worker's lease on the run lapsed while it worked: it stops without writing the run. */
  RunLeaseLost: 'opsbot_run_lease_lost',
  NotAllowed: 'opsbot_not_allowed',
  RunSchema: 'opsbot_run_schema',
  ModelUnavailable: 'opsbot_model_unavailable',
  ModelFailed: 'opsbot_model_failed',
  /** The model's plan (the plan engine's) was invalid, and so was the one it made when told why. */
  PlanInvalid: 'opsbot_plan_invalid',
  StoreUnavailable: 'opsbot_store_unavailable',
  RateLimited: 'opsbot_rate_limited',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Base class: every error the kernel raises on purpose carries a code and who is at fault. */
export class OpsbotError extends Error {
  readonly code: ErrorCode;
  readonly fault: 'caller' | 'system';

  constructor(code: ErrorCode, fault: 'caller' | 'system', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.fault = fault;
  }
}

/** The caller asked for something invalid: fix the request, do not retry as is. */
export class CallerError extends OpsbotError {
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, 'caller', message, options);
  }
}

/** Something on our side or a dependency failed: the same request may work later. */
export class SystemError extends OpsbotError {
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, 'system', message, options);
  }
}

/** The Store could not be reached or refused the operation (Redis away, SQLite closed or full). */
export function isStoreUnavailable(error: unknown): error is OpsbotError {
  return error instanceof OpsbotError && error.code === ErrorCode.StoreUnavailable;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
