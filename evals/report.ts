// Shows eval results: a terminal table with totals and pass rate, and a JSON file under evals/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScenarioResult } from './run-scenario.js';

export const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

const COLUMNS = ['scenario', 'result', 'steps', 'tools', 'prompt', 'completion', 'wall ms'] as const;

function row(result: ScenarioResult): string[] {
  return [
    `${result.group}/${result.name}`,
    result.passed ? 'pass' : `FAIL: ${result.reasons[0] ?? ''}`,
    String(result.steps),
    String(result.toolCalls),
    String(result.promptTokens),
    String(result.completionTokens),
    String(result.wallMs),
  ];
}

export interface Totals {
  scenarios: number;
  passed: number;
  passRate: number;
  steps: number;
  toolCalls: number;
  promptTokens: number;
  completionTokens: number;
  wallMs: number;
}

export function totalsOf(results: ScenarioResult[]): Totals {
  const sum = (pick: (result: ScenarioResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  const passed = results.filter((result) => result.passed).length;
  return {
    scenarios: results.length,
    passed,
    passRate: results.length === 0 ? 0 : passed / results.length,
    steps: sum((r) => r.steps),
    toolCalls: sum((r) => r.toolCalls),
    promptTokens: sum((r) => r.promptTokens),
    completionTokens: sum((r) => r.completionTokens),
    wallMs: sum((r) => r.wallMs),
  };
}

/** The table, one row per scenario run; failures list every reason under their row. */
export function formatTable(results: ScenarioResult[]): string {
  const totals = totalsOf(results);
  const rows = results.map(row);
  const footer = [
    'total',
    `${totals.passed}/${totals.scenarios} passed (${Math.round(totals.passRate * 100)}%)`,
    String(totals.steps),
    String(totals.toolCalls),
    String(totals.promptTokens),
    String(totals.completionTokens),
    String(totals.wallMs),
  ];
  const widths = COLUMNS.map((column, index) =>
    Math.min(90, Math.max(column.length, ...[...rows, footer].map((cells) => cells[index]!.length))),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, index) => {
        const clipped = cell.length > widths[index]! ? `${cell.slice(0, widths[index]! - 1)}…` : cell;
        return index >= 2 ? clipped.padStart(widths[index]!) : clipped.padEnd(widths[index]!);
      })
      .join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const body = results.flatMap((result, index) => [
    line(rows[index]!),
    ...(result.reasons.length > 1 || (result.reasons[0]?.length ?? 0) > 80
      ? result.reasons.map((reason) => `    - ${reason}`)
      : []),
  ]);
  return [line(COLUMNS), rule, ...body, rule, line(footer)].join('\n');
}

/** Writes evals/results/<timestamp>.json and returns its path. */
export function writeResults(results: ScenarioResult[], mode: string, now: Date = new Date()): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${now.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    path,
    `${JSON.stringify({ at: now.toISOString(), mode, totals: totalsOf(results), results }, null, 2)}\n`,
  );
  return path;
}
