// The terminal the CLI talks to, injected so tests can drive it with strings.
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { TerminalStream } from './terminal-stream.js';

/** The process's streams, or a test's: what `runCli` is given. */
export interface CliStreams {
  env: NodeJS.ProcessEnv;
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  /** True when a person can answer questions. */
  interactive: boolean;
}

/** What every command writes through: stdout and stderr only as TerminalStreams, which escape controls. */
export interface CliIo extends Omit<CliStreams, 'stdout' | 'stderr'> {
  stdout: TerminalStream;
  stderr: TerminalStream;
}

/** The CLI's output boundary: called once, by `runCli`, before any command can write. */
export function terminalIo(streams: CliStreams): CliIo {
  return {
    ...streams,
    stdout: new TerminalStream(streams.stdout),
    stderr: new TerminalStream(streams.stderr),
  };
}

export function processIo(): CliStreams {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  return {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    interactive: process.stdin.isTTY === true,
  };
}

/**
 * `opsbot run … | head -3`: once the reader has gone, writes fail with EPIPE. Like a Unix tool, say nothing
 * about it: later writes are dropped (a destroyed stream ignores them) and the run ends as it would have, so a
 * started action is still recorded. Any other write error is still thrown.
 */
export function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    throw error;
  });
}

/** Reads answers line by line; undefined once input has ended. */
export class LineReader {
  private readonly lines: string[] = [];
  private readonly waiters: ((line: string | undefined) => void)[] = [];
  private ended = false;
  private readonly reader: Interface;

  constructor(io: CliIo) {
    this.reader = createInterface({ input: io.stdin, terminal: false });
    this.reader.on('line', (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    });
    this.reader.on('close', () => {
      this.ended = true;
      for (const waiter of this.waiters.splice(0)) waiter(undefined);
    });
  }

  async next(prompt: string, io: CliIo): Promise<string | undefined> {
    io.stdout.write(prompt);
    const buffered = this.lines.shift();
    if (buffered !== undefined) return buffered;
    if (this.ended) return undefined;
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    this.reader.close();
  }
}
