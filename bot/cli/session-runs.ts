// Interactive mode's runs: steps made in this process print as they happen, and changes made by another
// process (an approval in another terminal, an answer in the playground) are found by polling the store.
import type { Kernel } from '../../agent/kernel.js';
import { isTerminal, type Run, type RunEvent } from '../../agent/run.js';
import { bold, dim, green, red, yellow } from './terminal-colors.js';
import { renderMarkdown } from './terminal-markdown.js';
import { formatEvent } from './terminal-output.js';

export interface SessionRunsOptions {
  /** How often runs that wait are read from the store: a few reads a second at most, and none when idle. */
  pollMs: number;
  /** Called after something from elsewhere was printed, so the prompt can be shown again. */
  onOutsideChange?: () => void;
}

export class SessionRuns {
  private readonly printed = new Map<string, number>();
  private readonly watched = new Set<string>();
  private busyCount = 0;
  private polling = false;
  private readonly stopListening: () => void;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly kernel: Kernel,
    private readonly write: (line: string) => void,
    private readonly options: SessionRunsOptions,
  ) {
    this.stopListening = kernel.onRunChange((run) => this.printLocal(run));
    this.timer = setInterval(() => void this.poll(), options.pollMs);
    this.timer.unref();
  }

  /** Follow this run until it ends, wherever it is moved on. */
  watch(runId: string): void {
    this.watched.add(runId);
  }

  /** While a command works here, the runs it moves print through this process's own changes, not the poll. */
  async busy<T>(work: () => Promise<T>): Promise<T> {
    this.busyCount++;
    try {
      return await work();
    } finally {
      this.busyCount--;
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.stopListening();
  }

  /** One look at the watched runs; exposed for tests and for a check right before the prompt. */
  async poll(): Promise<void> {
    if (this.busyCount > 0 || this.polling || this.watched.size === 0) return;
    this.polling = true;
    let printedAny = false;
    try {
      for (const runId of [...this.watched]) {
        const run = await this.kernel.runs.find(runId).catch(() => undefined);
        if (run === undefined || this.busyCount > 0) continue;
        const from = this.printed.get(run.id) ?? run.events.length;
        for (const event of run.events.slice(from)) {
          const line = formatOutsideEvent(event, run);
          if (line === undefined) continue;
          if (!printedAny) this.write('');
          printedAny = true;
          this.write(line);
        }
        this.printed.set(run.id, run.events.length);
        if (isTerminal(run.status)) this.watched.delete(run.id);
      }
    } finally {
      this.polling = false;
    }
    if (printedAny) this.options.onOutsideChange?.();
  }

  private printLocal(run: Run): void {
    const from = this.printed.get(run.id) ?? run.events.length - 1;
    for (const event of run.events.slice(Math.max(0, from))) {
      const line = formatEvent(event);
      if (line) this.write(line);
    }
    this.printed.set(run.id, run.events.length);
  }
}

/** A change made elsewhere: no chat message reached this terminal, so the event itself is told. */
export function formatOutsideEvent(event: RunEvent, run: Run): string | undefined {
  switch (event.type) {
    case 'approval_decided': {
      const reason = event.reason ? `: ${event.reason}` : '';
      if (event.decision === 'approved') return green(`✔ ${event.approvalId} approved by ${event.by}`);
      if (event.decision === 'denied') return red(`✘ ${event.approvalId} denied by ${event.by}${reason}`);
      return yellow(`⚠ ${event.approvalId} ${event.decision}${reason}`);
    }
    case 'approval_counted':
      return green(`✔ ${event.approvalId} approved by ${event.byName} (${event.count} of ${event.needed})`);
    case 'answer_received':
      return dim(`  · ${event.by} answered: ${event.answer}`);
    case 'question_asked':
      return `${yellow('?')} ${bold(renderMarkdown(event.question))} ${dim(`(answer ${run.id} <text>)`)}`;
    case 'finished': {
      const ok = run.status !== 'finished' || run.ok;
      return `${ok ? green('✔ ') : red('✘ ')}${renderMarkdown(event.answer)}\n${dim(`run ${run.id}: ${run.status}`)}`;
    }
    case 'failed':
      return red(`✘ ${event.message}\n${dim(`run ${run.id}: failed`)}`);
    case 'cancelled':
      return yellow(`run ${run.id} was cancelled by ${event.by}`);
    case 'expired':
      return yellow(`⚠ ${event.message}`);
    case 'outcome_unknown':
      return yellow(`⚠ run ${run.id}: the outcome of ${event.tool} is unknown`);
    default:
      return formatEvent(event);
  }
}
