// Stops the bot's parts in order on SIGTERM/SIGINT, within a deadline, so runs are saved rather than cut off.

import { formatDuration } from '../agent/duration-text.js';
import type { Logger } from '../agent/logger.js';

export interface ShutdownStep {
  name: string;
  stop: () => Promise<void>;
}

export interface GracefulShutdownOptions {
  logger: Logger;
  /** Run in order: stop taking work first, release storage last. */
  steps: ShutdownStep[];
  /** Longer than this in total and the process exits 1, naming the step that hung. */
  timeoutMs?: number;
  exit?: (code: number) => void;
  signals?: NodeJS.Signals[];
}

/** Installs the signal handlers; the returned function removes them again. */
export function installGracefulShutdown(options: GracefulShutdownOptions): () => void {
  const {
    logger,
    steps,
    timeoutMs = 10_000,
    exit = (code: number) => process.exit(code),
    signals = ['SIGTERM', 'SIGINT'],
  } = options;
  let phase: 'waiting' | 'stopping' | 'exited' = 'waiting';
  let currentStep: string | undefined;
  let deadline: NodeJS.Timeout | undefined;

  const finish = (code: number) => {
    if (phase === 'exited') return;
    phase = 'exited';
    clearTimeout(deadline);
    exit(code);
  };

  const runSteps = async () => {
    for (const step of steps) {
      if (phase !== 'stopping') return;
      currentStep = step.name;
      const started = Date.now();
      logger.info({ step: step.name }, `shutdown: stopping ${step.name}`);
      try {
        await step.stop();
        logger.info({ step: step.name, durationMs: Date.now() - started }, `shutdown: stopped ${step.name}`);
      } catch (error) {
        // One part failing to stop must not keep the others from stopping.
        logger.error({ step: step.name, err: error }, `shutdown: ${step.name} failed to stop`);
      }
    }
    currentStep = undefined;
    logger.info({}, 'shutdown: complete');
    finish(0);
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (phase === 'exited') return;
    if (phase === 'stopping') {
      // Someone pressed Ctrl-C twice: they want out now, not after the deadline.
      logger.warn({ signal, step: currentStep }, `shutdown: second ${signal} while stopping; exiting now`);
      finish(1);
      return;
    }
    phase = 'stopping';
    logger.info({ signal, timeoutMs }, `shutdown: ${signal} received; stopping ${steps.length} parts`);
    deadline = setTimeout(() => {
      logger.error(
        { step: currentStep, timeoutMs },
        `shutdown: ${currentStep ?? 'shutdown'} did not stop within ${formatDuration(timeoutMs)}; exiting`,
      );
      finish(1);
    }, timeoutMs);
    void runSteps();
  };

  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
