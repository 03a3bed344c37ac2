// Builds the context a new run in a thread gets: what was asked there before and how each run ended.
import type { Run } from './run.js';
import type { RunRepository } from './run-repository.js';

const MAX_RUNS = 5;
const MAX_CHARS_PER_RUN = 400;

export async function buildThreadSummary(runs: RunRepository, runIds: string[]): Promise<string | undefined> {
  const recent = runIds.slice(-MAX_RUNS);
  const lines: string[] = [];
  for (const runId of recent) {
    const run = await runs.find(runId).catch(() => undefined);
    if (run) lines.push(describeRun(run));
  }
  return lines.length > 0 ? lines.join('\n') : undefined;
}

function describeRun(run: Run): string {
  const outcome = outcomeOf(run);
  const line = `- ${run.principal.displayName} asked: "${run.task}" → ${run.status.replaceAll('_', ' ')}${outcome ? `: ${outcome}` : ''}`;
  return line.length > MAX_CHARS_PER_RUN ? `${line.slice(0, MAX_CHARS_PER_RUN - 1)}…` : line;
}

function outcomeOf(run: Run): string {
  switch (run.status) {
    case 'finished':
      return run.answer;
    case 'failed':
      return run.error.message;
    case 'waiting_for_user':
      return 'question';
    case 'waiting_for_approval':
      return 'approval';
    case 'executing':
      return 'executing';
    default:
      return '';
  }
}
