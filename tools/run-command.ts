// Runs a program without a shell: own process group, timeout kills the group, output capped, env allow-listed.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { maskValues } from '../agent/secret-values.js';
import { isToolTimeout } from '../agent/tool-timeout.js';
import { CALL_MARK_VARIABLE, childEnvironment } from './child-environment.js';
import { environmentValuesToMask } from './environment-value-mask.js';
import { killMarkedProcesses, signalMarkedProcesses } from './marked-processes.js';
import { type CapturedOutput, OutputCapture } from './output-capture.js';

export const DEFAULT_OUTPUT_LIMIT_BYTES = 64 * 1024;
export const DEFAULT_KILL_GRACE_MS = 2_000;

export interface RunCommandOptions {
  /** Absolute path of the program; never looked up here. */
  file: string;
  args: string[];
  /** What the program sees as argv[0]; the file's path when absent. */
  argv0?: string;
  cwd?: string;
  /** opsbot's environment, which the base names and pass-through entries are taken from; process.env when absent. */
  env?: NodeJS.ProcessEnv;
  /**
   * The command's `env:` entries: NAME passes env's value through, NAME=value sets it. Their values are hidden
   * in the captured output (see environment-value-mask.ts).
   */
  environment?: readonly string[];
  /** The value of OPSBOT_CALL in every process of this call; a fresh random id when absent. */
  callId?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes kept per stream (head and tail), 64 KB by default. */
  outputLimitBytes?: number;
  /** Total bytes on stdout and stderr after which the process is stopped; 4 x the limit by default. */
  floodBytes?: number;
  /** Time between SIGTERM and SIGKILL. */
  killGraceMs?: number;
}

export interface CommandOutcome {
  pid: number | undefined;
  /** The OPSBOT_CALL mark this call's processes carried. */
  callId: string;
  exitCode: number | null;
  /** The signal that ended the process, if one did. */
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  /** Output passed the flood limit and the process was stopped. */
  flooded: boolean;
  /** The program could not be started at all (ENOENT, EACCES, ...). */
  spawnError: string | undefined;
  stdout: CapturedOutput;
  stderr: CapturedOutput;
  durationMs: number;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // A negative pid addresses the whole process group, which the detached child leads.
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function signalMarked(callId: string, signal: NodeJS.Signals): Promise<unknown> {
  return signalMarkedProcesses(CALL_MARK_VARIABLE, callId, signal).catch(() => 0);
}

/**
 * Runs the program and resolves when it and its output pipes are done. Never rejects for the program's own
 * failures; they are in the outcome. The child leads a new process group, so a timeout, cancel or flood
 * stops everything it started: SIGTERM to the group, then SIGKILL after the grace period.
 *
 * A double-forked `setsid` grandchild is in neither the group nor the child's subtree once the middle process
 * exits, so every process also carries OPSBOT_CALL=<call id> in its environment, and whatever still carries
 * it is signalled with the group, and killed when the child exits. A process that scrubs its own environment
 * escapes the mark; a cgroup would catch it, but needs a delegated cgroup v2 subtree opsbot rarely has.
 */
export function runCommand(options: RunCommandOptions): Promise<CommandOutcome> {
  const limit = options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT_BYTES;
  const floodBytes = options.floodBytes ?? limit * 4;
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const stdout = new OutputCapture(limit);
  const stderr = new OutputCapture(limit);
  const started = performance.now();
  const callId = options.callId ?? randomUUID();
  const parentEnvironment = options.env ?? process.env;
  const valuesToMask = environmentValuesToMask(parentEnvironment, options.environment ?? []);
  const captured = (capture: OutputCapture): CapturedOutput => {
    const result = capture.result();
    return { ...result, text: maskValues(result.text, valuesToMask) };
  };

  return new Promise<CommandOutcome>((resolve) => {
    let timedOut = false;
    let cancelled = false;
    let flooded = false;
    let spawnError: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let stopping = false;

    const child = spawn(options.file, options.args, {
      argv0: options.argv0,
      cwd: options.cwd,
      env: childEnvironment(parentEnvironment, options.environment ?? [], callId),
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const pid = child.pid;

    const stop = () => {
      if (stopping || pid === undefined) return;
      stopping = true;
      signalGroup(pid, 'SIGTERM');
      void signalMarked(callId, 'SIGTERM');
      killTimer = setTimeout(() => {
        signalGroup(pid, 'SIGKILL');
        void signalMarked(callId, 'SIGKILL');
      }, graceMs);
    };

    const onData = (capture: OutputCapture) => (chunk: Buffer) => {
      capture.push(chunk);
      // Reading goes on after a flood (the capture keeps only head and tail), so the pipes drain and close.
      if (!flooded && stdout.totalBytes + stderr.totalBytes > floodBytes) {
        flooded = true;
        stop();
      }
    };
    child.stdout?.on('data', onData(stdout));
    child.stderr?.on('data', onData(stderr));

    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    // The caller's signal also aborts at the call's deadline, with a timeout for its reason: not a cancel.
    const onAbort = () => {
      if (isToolTimeout(options.signal?.reason)) timedOut = true;
      else cancelled = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('error', (error) => {
      spawnError = error.message;
    });
    let drainTimer: NodeJS.Timeout | undefined;
    let sweep: Promise<void> = Promise.resolve();
    const sweepMarked = () => {
      sweep = sweep.then(() => killMarkedProcesses(CALL_MARK_VARIABLE, callId)).catch(() => undefined);
    };
    child.on('exit', () => {
      // Anything the program left running, in its group (a backgrounded child) or out of it (setsid), must
      // not outlive it.
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
      sweepMarked();
      // A descendant that left the group (setsid) could hold the pipes open forever; stop waiting for it.
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, graceMs);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      if (drainTimer) clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // The call is over only when nothing carrying its mark is left, whatever ended it.
      if (pid !== undefined) sweepMarked();
      const durationMs = Math.round(performance.now() - started);
      void sweep.then(() =>
        resolve({
          pid,
          callId,
          exitCode,
          signal,
          timedOut,
          cancelled,
          flooded,
          spawnError,
          stdout: captured(stdout),
          stderr: captured(stderr),
          durationMs,
        }),
      );
    });
  });
}
