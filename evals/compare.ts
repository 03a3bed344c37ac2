// `npm run eval -- compare a.json b.json`: two results files side by side, per group and overall (pass rate, and
// per run the average steps, model calls, tool calls, prompt and completion tokens and wall time), then every scenario whose
// result changed. How a prompt or model change is judged: run the suite live before and after, and compare.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ReportMetaSchema } from './report-meta.js';

const ResultSchema = z.object({
  name: z.string(),
  group: z.string(),
  mode: z.string(),
  passed: z.boolean(),
  skipped: z.string().optional(),
  reasons: z.array(z.string()),
  steps: z.number(),
  /** Absent in results files written before model calls were kept. */
  modelCalls: z.number().optional(),
  toolCalls: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  wallMs: z.number(),
});
type Result = z.infer<typeof ResultSchema>;

/** Results files written before the mode's details were kept still load; what they lack reads "unknown". */
const ReportSchema = ReportMetaSchema.partial().extend({
  at: z.string(),
  mode: z.string(),
  results: z.array(ResultSchema),
});
export type EvalReport = z.infer<typeof ReportSchema>;

export class ReportFileError extends Error {
  override readonly name = 'ReportFileError';
}

export function loadReport(path: string): EvalReport {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ReportFileError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = ReportSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ReportFileError(`${path} is not an eval results file:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

interface Figures {
  runs: number;
  passed: number;
  steps: number;
  modelCalls: number;
  toolCalls: number;
  promptTokens: number;
  completionTokens: number;
  wallMs: number;
}

const labelOf = (result: Result) =>
  `${result.group}/${result.name}${result.mode === 'cassette' ? ' (cassette)' : ''}`;
const counted = (report: EvalReport) => report.results.filter((result) => result.skipped === undefined);

function figuresOf(results: Result[]): Figures {
  const sum = (pick: (result: Result) => number) =>
    results.reduce((total, result) => total + pick(result), 0);
  return {
    runs: results.length,
    passed: results.filter((result) => result.passed).length,
    steps: sum((result) => result.steps),
    modelCalls: sum((result) => result.modelCalls ?? 0),
    toolCalls: sum((result) => result.toolCalls),
    promptTokens: sum((result) => result.promptTokens),
    completionTokens: sum((result) => result.completionTokens),
    wallMs: sum((result) => result.wallMs),
  };
}

const COLUMNS = [
  'group',
  'pass rate',
  'avg steps',
  'avg model calls',
  'avg tool calls',
  'avg prompt',
  'avg completion',
  'avg wall ms',
];

function rate(figures: Figures | undefined): string {
  if (!figures || figures.runs === 0) return '-';
  return `${figures.passed}/${figures.runs} (${Math.round((figures.passed / figures.runs) * 100)}%)`;
}

function average(figures: Figures | undefined, pick: (figures: Figures) => number): string {
  if (!figures || figures.runs === 0) return '-';
  const value = pick(figures) / figures.runs;
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function cells(group: string, before: Figures | undefined, after: Figures | undefined): string[] {
  const both = (text: (figures: Figures | undefined) => string) => `${text(before)} → ${text(after)}`;
  return [
    group,
    both(rate),
    both((figures) => average(figures, (f) => f.steps)),
    both((figures) => average(figures, (f) => f.modelCalls)),
    both((figures) => average(figures, (f) => f.toolCalls)),
    both((figures) => average(figures, (f) => f.promptTokens)),
    both((figures) => average(figures, (f) => f.completionTokens)),
    both((figures) => average(figures, (f) => f.wallMs)),
  ];
}

function byGroup(report: EvalReport): Map<string, Result[]> {
  const groups = new Map<string, Result[]>();
  for (const result of counted(report))
    groups.set(result.group, [...(groups.get(result.group) ?? []), result]);
  return groups;
}

function table(rows: string[][]): string {
  const widths = COLUMNS.map((column, index) =>
    Math.max(column.length, ...rows.map((row) => row[index]!.length)),
  );
  const line = (row: readonly string[]) =>
    row
      .map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!)))
      .join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(COLUMNS), rule, ...rows.slice(0, -1).map(line), rule, line(rows.at(-1)!)].join('\n');
}

/** A scenario's outcome over its runs: pass, FAIL, or a rate when it was repeated. */
function verdictOf(results: Result[] | undefined): string {
  if (!results || results.length === 0) return 'absent';
  const passed = results.filter((result) => result.passed).length;
  if (results.length === 1) return passed === 1 ? 'pass' : 'FAIL';
  return `${passed}/${results.length}`;
}

function changedLines(before: EvalReport, after: EvalReport): string[] {
  const runs = (report: EvalReport) => {
    const map = new Map<string, Result[]>();
    for (const result of counted(report))
      map.set(labelOf(result), [...(map.get(labelOf(result)) ?? []), result]);
    return map;
  };
  const was = runs(before);
  const now = runs(after);
  const labels = [...new Set([...was.keys(), ...now.keys()])].sort();
  return labels.flatMap((label) => {
    const from = verdictOf(was.get(label));
    const to = verdictOf(now.get(label));
    if (from === to) return [];
    const reason = now.get(label)?.find((result) => !result.passed)?.reasons[0];
    return [`  ${label}: ${from} → ${to}${reason ? ` (${reason})` : ''}`];
  });
}

function describe(name: string, report: EvalReport): string {
  const prompt = report.prompts?.system ?? 'unknown';
  return `${name}: ${report.mode} at ${report.at}; model ${report.model ?? 'unknown'}, engine ${report.engine ?? 'unknown'}, system prompt ${prompt}`;
}

/** The comparison as printed: both reports named, the table, and the scenarios that changed. */
export function formatComparison(
  before: { path: string; report: EvalReport },
  after: { path: string; report: EvalReport },
): string {
  const was = byGroup(before.report);
  const now = byGroup(after.report);
  const groups = [...new Set([...was.keys(), ...now.keys()])].sort();
  const rows = groups.map((group) => {
    const from = was.get(group);
    const to = now.get(group);
    return cells(group, from && figuresOf(from), to && figuresOf(to));
  });
  rows.push(cells('overall', figuresOf(counted(before.report)), figuresOf(counted(after.report))));
  const changed = changedLines(before.report, after.report);
  return [
    describe(`a ${before.path}`, before.report),
    describe(`b ${after.path}`, after.report),
    '',
    table(rows),
    '',
    changed.length > 0 ? `changed (a → b):\n${changed.join('\n')}` : 'changed (a → b): none',
  ].join('\n');
}
