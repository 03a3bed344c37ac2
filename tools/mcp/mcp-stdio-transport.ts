// The stdio transport for one MCP server: its argv without a shell, in a process group of its own, with the
// child-environment allow-list, its stderr kept (bounded), and how it ended ("exit 1") for the connection's state.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CALL_MARK_VARIABLE, childEnvironment } from '../child-environment.js';
import { killMarkedProcesses } from '../marked-processes.js';

/** Enough for a stack trace: the end of the server's stderr, for the log and `opsbot mcp list`. */
export const STDERR_TAIL_BYTES = 8 * 1024;
/** One JSON-RPC line may be this long; a bigger result closes the transport (opsbot caps results far below it). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** After stdin closes, how long the server has to exit before the group gets SIGTERM, then SIGKILL. */
const CLOSE_GRACE_MS = 2_000;

export interface McpStdioOptions {
  server: string;
  command: readonly string[];
  /** The `env:` allow-list of the server's settings. */
  env: readonly string[];
  /** opsbot's environment, where pass-through names are read. */
  parentEnvironment: NodeJS.ProcessEnv;
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    // The negative pid is the group the detached child leads: its own children go with it.
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is gone.
  }
}

/**
 * Written here rather than using the SDK's StdioClientTransport: that one merges SHELL, TERM and LOGNAME from
 * opsbot's environment into every child, cannot start a process group, and never says how the child ended.
 * The framing (one JSON-RPC message a line) is the SDK's own ReadBuffer.
 */
export class McpStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private readonly readBuffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  private stderrText = '';
  private ending: string | undefined;
  private closed = false;
  /** Marks the server and everything it starts, so a grandchild that left the group is still found on close. */
  private readonly mark: string;

  constructor(private readonly options: McpStdioOptions) {
    // One mark a start: closing this child must never touch the one started after it.
    this.mark = `mcp-${options.server}-${randomUUID()}`;
  }

  /** How the child ended, "exit 1" or "signal SIGKILL"; undefined while it runs. */
  get exitReason(): string | undefined {
    return this.ending;
  }

  /** The last STDERR_TAIL_BYTES of what the server wrote to stderr. */
  get stderrTail(): string {
    return this.stderrText;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    const [file, ...args] = this.options.command;
    if (file === undefined) return Promise.reject(new Error('the command is empty'));
    return new Promise((resolve, reject) => {
      const child = spawn(file, args, {
        env: childEnvironment(this.options.parentEnvironment, this.options.env, this.mark),
        shell: false,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
      this.child = child;
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        this.ending ??= `cannot start: ${error.message}`;
        reject(error);
        this.finish();
      });
      child.once('exit', (code, signal) => {
        this.ending ??= signal ? `signal ${signal}` : `exit ${code}`;
        // What the server left running in its group cannot talk to us any more; it also holds the pipes open.
        signalGroup(child.pid, 'SIGKILL');
      });
      child.once('close', () => this.finish());
      child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr?.on('data', (chunk: Buffer) => this.keepStderr(chunk));
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.ending !== undefined) return Promise.reject(new Error('the server is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Closes stdin (a well-behaved server exits), then stops the group: SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.ending !== undefined) {
      this.finish();
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    child.stdin?.end();
    if (!(await settlesWithin(exited, CLOSE_GRACE_MS))) {
      signalGroup(child.pid, 'SIGTERM');
      if (!(await settlesWithin(exited, CLOSE_GRACE_MS))) signalGroup(child.pid, 'SIGKILL');
    }
    await killMarkedProcesses(CALL_MARK_VARIABLE, this.mark).catch(() => undefined);
    this.finish();
  }

  private receive(chunk: Buffer): void {
    try {
      this.readBuffer.append(chunk);
      for (let message = this.readBuffer.readMessage(); message; message = this.readBuffer.readMessage()) {
        this.onmessage?.(message);
      }
    } catch (error) {
      // A line that is not JSON-RPC, or one over the size limit: the stream cannot be trusted after it.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      this.ending ??= `unreadable output: ${error instanceof Error ? error.message : String(error)}`;
      signalGroup(this.child?.pid, 'SIGKILL');
    }
  }

  private keepStderr(chunk: Buffer): void {
    const text = this.stderrText + chunk.toString('utf8');
    this.stderrText = text.length > STDERR_TAIL_BYTES ? text.slice(-STDERR_TAIL_BYTES) : text;
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.readBuffer.clear();
    this.onclose?.();
  }
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
