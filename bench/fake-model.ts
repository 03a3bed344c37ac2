// Starts the fake model child process and talks to it over its stdin and stdout, one JSON line at a time.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const childScript = fileURLToPath(new URL('./fake-model-process.ts', import.meta.url));

export class FakeModelProcess {
  private constructor(
    private readonly child: ChildProcess,
    private readonly lines: Interface,
    readonly baseURL: string,
  ) {}

  /** `args` go to fake-model-process.ts, e.g. `['--scale-delay-ms', '200']`. */
  static async start(args: string[] = []): Promise<FakeModelProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', childScript, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! });
    const first = await nextLine(lines, child, 'start');
    const { port } = JSON.parse(first) as { port: string };
    return new FakeModelProcess(child, lines, `http://127.0.0.1:${port}/v1`);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Chat completion requests the fake has answered so far, to cross-check the turns the runners counted. */
  async requestCount(): Promise<number> {
    const reply = nextLine(this.lines, this.child, 'count');
    this.child.stdin!.write('count\n');
    return (JSON.parse(await reply) as { requests: number }).requests;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin!.end();
    await exited;
  }
}

function nextLine(lines: Interface, child: ChildProcess, purpose: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`the fake model process exited (code ${code}) while waiting to ${purpose}`));
    child.once('exit', onExit);
    lines.once('line', (line) => {
      child.off('exit', onExit);
      resolve(line);
    });
  });
}
