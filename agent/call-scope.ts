// A tool call's abort signal and logger, made only if the tool reads them.
import type { Logger } from './logger.js';

/**
 * A call's abort signal and logger, made only when the tool reads them: most calls never do, and making and
 * aborting a signal (with its Error) costs more than the rest of a cheap read call. A tool that reads the
 * signal after the call ended gets one that is already aborted, with the same reason.
 */
export class CallScope {
  private controller: AbortController | undefined;
  private child: Logger | undefined;
  private endReason: (() => unknown) | undefined;

  constructor(private readonly makeLogger: () => Logger) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.endReason) this.controller.abort(this.endReason());
    }
    return this.controller.signal;
  }

  get logger(): Logger {
    this.child ??= this.makeLogger();
    return this.child;
  }

  /** Aborts the signal (now, or as it is made) with the first reason given; later ones are ignored. */
  end(reason: () => unknown): void {
    if (this.endReason) return;
    this.endReason = reason;
    this.controller?.abort(reason());
  }
}
