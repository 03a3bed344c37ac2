// Prints a report for people: one line per runner process as it ends, then min and median per runner, side by side.
import type { BenchReport, RunnerSummary } from './report.js';
import type { RunnerName } from './runners/runner.js';
import type { ProcessResult } from './session.js';
import type { MinMedian } from './stats.js';

const COLUMNS: [heading: string, pick: (summary: RunnerSummary) => MinMedian | null, digits: number][] = [
  ['CPU ms/turn', (summary) => summary.cpu_ms_per_turn, 3],
  ['CPU × bare', (summary) => summary.cpu_ratio_to_bare, 2],
  ['runs/s', (summary) => summary.runs_per_s, 1],
  ['peak RSS MiB', (summary) => summary.peak_rss_mb, 1],
];

export function formatProcessLine(result: ProcessResult): string {
  const m = result.measurement;
  const cpu = (m.cpuUserMs + m.cpuSystemMs) / m.modelTurns;
  return [
    `  round ${result.round}.${result.position} ${result.runner.padEnd(14)}`,
    `${cpu.toFixed(3)} ms CPU/turn`,
    `${(m.runs / (m.wallMs / 1000)).toFixed(1)} runs/s`,
    `peak RSS ${(m.processPeakRssBytes / 2 ** 20).toFixed(1)} MiB`,
    `load ${result.loadAverage1m.toFixed(2)}`,
  ].join('  ');
}

export function formatTable(report: BenchReport): string {
  const names = Object.keys(report.summary) as RunnerName[];
  const headings = ['', ...COLUMNS.flatMap(([heading]) => [heading, ''])];
  const subheadings = ['runner', ...COLUMNS.flatMap(() => ['min', 'median'])];
  const rows = names.map((name) => {
    const summary = report.summary[name]!;
    return [
      name,
      ...COLUMNS.flatMap(([, pick, digits]) => {
        const figure = pick(summary);
        return figure ? [figure.min.toFixed(digits), figure.median.toFixed(digits)] : ['–', '–'];
      }),
    ];
  });
  const cells = [subheadings, ...rows];
  const widths = subheadings.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  // Each heading spans its min and median columns; a long heading widens the pair rather than overhang it.
  const headingLine = [headings[0]!.padEnd(widths[0]!)];
  for (let column = 1; column < widths.length; column += 2) {
    const heading = headings[column]!;
    const span = widths[column]! + 2 + widths[column + 1]!;
    if (heading.length > span) widths[column + 1]! += heading.length - span;
    headingLine.push(heading.padStart(Math.max(span, heading.length)));
  }
  const line = (row: string[]) =>
    row
      .map((text, column) => (column === 0 ? text.padEnd(widths[0]!) : text.padStart(widths[column]!)))
      .join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [headingLine.join('  '), line(subheadings), rule, ...rows.map(line)].join('\n');
}

export function formatTargetLine(report: BenchReport): string {
  const { runner, ratio_min: min, ratio_median: median, max_ratio: max, met_at_median: met } = report.target;
  if (min === null || median === null) return `${runner}: no ratio (run both bare and ${runner} to get one)`;
  const line = `${runner} CPU per turn: ${min}× (min) and ${median}× (median) the bare loop; issue 16 aims for ≤ ${max}×: ${met ? 'met' : 'NOT met'}`;
  const { ratio_to_same_transport_min: ownMin, ratio_to_same_transport_median: ownMedian } = report.target;
  const { own_cpu_ms_per_turn_min: msMin, own_cpu_ms_per_turn_median: msMedian } = report.target;
  if (ownMin === null || ownMedian === null || msMin === null || msMedian === null) return line;
  const guard = report.target.own_work_guard_ms;
  const held = msMedian <= guard ? 'held' : 'NOT held';
  return [
    line,
    `${runner} against the bare loop on the kernel's own fetch (the kernel's own work): ${ownMin}× (min) and ${ownMedian}× (median),`,
    `  ${msMin} ms (min) and ${msMedian} ms (median) more CPU per model turn; the guard is ≤ ${guard} ms: ${held}`,
  ].join('\n');
}
