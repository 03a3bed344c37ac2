// Shows eval results: a terminal table with totals and pass rate (and each scenario's rate over repeats), and
// a JSON file under evals/results/. Skipped runs (scripted-only scenarios in live mode) count in no total.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReportMeta } from './report-meta.js';
import type { ScenarioResult } from './scenario-result.js';

export const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

const COLUMNS = ['scenario', 'result', 'steps', 'tools', 'prompt', 'completion', 'wall ms'] as const;

const labelOf = (result: ScenarioResult): string =>
  `${result.group}/${result.name}${result.mode === 'cassette' ? ' (cassette)' : ''}`;

function verdict(result: ScenarioResult): string {
  if (result.skipped !== undefined) return `skip: ${result.skipped}`;
  return result.passed ? 'pass' : `FAIL: ${result.reasons[0] ?? ''}`;
}

function row(result: ScenarioResult): string[] {
  return [
    labelOf(result),
    verdict(result),
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
  skipped: number;
  passRate: number;
  steps: number;
  toolCalls: number;
  promptTokens: number;
  completionTokens: number;
  wallMs: number;
}

export function totalsOf(all: ScenarioResult[]): Totals {
  const results = all.filter((result) => result.skipped === undefined);
  const sum = (pick: (result: ScenarioResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  const passed = results.filter((result) => result.passed).length;
  return {
    scenarios: results.length,
    passed,
    skipped: all.length - results.length,
    passRate: results.length === 0 ? 0 : passed / results.length,
    steps: sum((r) => r.steps),
    toolCalls: sum((r) => r.toolCalls),
    promptTokens: sum((r) => r.promptTokens),
    completionTokens: sum((r) => r.completionTokens),
    wallMs: sum((r) => r.wallMs),
  };
}

/** The judge's verdict under a scenario's row: how many items passed, and each item that did not. */
function rubricLines(result: ScenarioResult): string[] {
  const { rubric } = result;
  if (!rubric) return [];
  if ('error' in rubric) return [`    rubric (${rubric.model}): no verdict: ${rubric.error}`];
  const passed = rubric.items.filter((entry) => entry.pass).length;
  return [
    `    rubric (${rubric.model}): ${passed}/${rubric.items.length} items passed`,
    ...rubric.items.filter((entry) => !entry.pass).map((entry) => `      ✗ ${entry.item}: ${entry.reason}`),
  ];
}

/** The table, one row per scenario run; failures list every reason under their row. */
export function formatTable(results: ScenarioResult[]): string {
  const totals = totalsOf(results);
  const rows = results.map(row);
  const footer = [
    'total',
    `${totals.passed}/${totals.scenarios} passed (${Math.round(totals.passRate * 100)}%)` +
      (totals.skipped > 0 ? `, ${totals.skipped} skipped` : ''),
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
    ...rubricLines(result),
  ]);
  return [line(COLUMNS), rule, ...body, rule, line(footer)].join('\n');
}

/** Each scenario's pass rate over its repeats: what a live model's varying answers come to. */
export function formatRepeats(results: ScenarioResult[]): string {
  const runs = new Map<string, ScenarioResult[]>();
  for (const result of results) {
    if (result.skipped !== undefined) continue;
    runs.set(labelOf(result), [...(runs.get(labelOf(result)) ?? []), result]);
  }
  const width = Math.max(8, ...[...runs.keys()].map((label) => label.length));
  const lines = [...runs].map(([label, rounds]) => {
    const passed = rounds.filter((result) => result.passed).length;
    const rate = `${passed}/${rounds.length} (${Math.round((passed / rounds.length) * 100)}%)`;
    const failure = rounds.find((result) => !result.passed)?.reasons[0];
    const shown = failure && failure.length > 100 ? `${failure.slice(0, 99)}…` : failure;
    return `${label.padEnd(width)}  ${rate.padStart(11)}${shown ? `  first failure: ${shown}` : ''}`;
  });
  return [`${'scenario'.padEnd(width)}  ${'pass rate'.padStart(11)}`, ...lines].join('\n');
}

/** Writes <dir>/<timestamp>.json (evals/results/ by default) and returns its path. */
export function writeResults(
  results: ScenarioResult[],
  meta: ReportMeta,
  dir: string = RESULTS_DIR,
  now: Date = new Date(),
): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${now.toISOString().replace(/[:.]/g, '-')}.json`);
  const report = { at: now.toISOString(), ...meta, totals: totalsOf(results), results };
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}
