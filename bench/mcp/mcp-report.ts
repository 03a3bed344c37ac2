// The MCP bench's figures over rounds: min and median per runner of each figure, opsbot's overhead over the bare
// SDK client measured in the same session (ms added, and the ratio), and the printed tables.
import { type MinMedian, minMedian } from '../stats.js';
import type { McpRunnerName } from './mcp-caller.js';
import type { McpProcessFigures } from './mcp-job.js';

const FIGURES = {
  'seq p50 ms': (f: McpProcessFigures) => f.sequential.p50Ms,
  'seq p99 ms': (f: McpProcessFigures) => f.sequential.p99Ms,
  'seq CPU ms': (f: McpProcessFigures) => f.sequential.cpuMsPerCall,
  'par p50 ms': (f: McpProcessFigures) => f.concurrent.p50Ms,
  'par p99 ms': (f: McpProcessFigures) => f.concurrent.p99Ms,
  'par CPU ms': (f: McpProcessFigures) => f.concurrent.cpuMsPerCall,
  'par calls/s': (f: McpProcessFigures) => f.concurrent.callsPerS,
  'RSS MB': (f: McpProcessFigures) => f.rssMb,
  'start ms': (f: McpProcessFigures) => f.startMs,
} as const;
export type McpFigure = keyof typeof FIGURES;
export const MCP_FIGURES = Object.keys(FIGURES) as McpFigure[];

export type McpSummary = Partial<Record<McpRunnerName, Record<McpFigure, MinMedian>>>;

/** Added over bare-sdk, min over min and median over median, for the figures that are costs per call. */
export interface McpOverhead {
  runner: McpRunnerName;
  figure: McpFigure;
  addedMs: MinMedian;
  ratio: MinMedian;
}
const OVERHEAD_FIGURES: McpFigure[] = ['seq p50 ms', 'seq p99 ms', 'seq CPU ms', 'par p50 ms', 'par CPU ms'];

export function summarize(results: Partial<Record<McpRunnerName, McpProcessFigures[]>>): McpSummary {
  const summary: McpSummary = {};
  for (const [name, rounds] of Object.entries(results) as [McpRunnerName, McpProcessFigures[]][]) {
    if (rounds.length === 0) continue;
    summary[name] = Object.fromEntries(
      MCP_FIGURES.map((figure) => [figure, minMedian(rounds.map(FIGURES[figure]))]),
    ) as Record<McpFigure, MinMedian>;
  }
  return summary;
}

export function overheads(summary: McpSummary): McpOverhead[] {
  const bare = summary['bare-sdk'];
  if (!bare) return [];
  return (Object.entries(summary) as [McpRunnerName, Record<McpFigure, MinMedian>][])
    .filter(([name]) => name !== 'bare-sdk')
    .flatMap(([runner, row]) =>
      OVERHEAD_FIGURES.map((figure) => ({
        runner,
        figure,
        addedMs: {
          min: row[figure].min - bare[figure].min,
          median: row[figure].median - bare[figure].median,
        },
        ratio: { min: row[figure].min / bare[figure].min, median: row[figure].median / bare[figure].median },
      })),
    );
}

const signed = (value: number) => `${value < 0 ? '' : '+'}${value.toFixed(3)}`;
const cell = (v: MinMedian, digits: number) =>
  `${v.min.toFixed(digits)}/${v.median.toFixed(digits)}`.padStart(16);
const digitsOf = (figure: McpFigure) =>
  figure === 'RSS MB' || figure.endsWith('/s') || figure === 'start ms' ? 0 : 3;

export function formatMcpTables(summary: McpSummary): string {
  const lines = [`${'runner'.padEnd(19)}${MCP_FIGURES.map((f) => f.padStart(16)).join('')}`];
  for (const [name, row] of Object.entries(summary) as [string, Record<McpFigure, MinMedian>][]) {
    lines.push(`${name.padEnd(19)}${MCP_FIGURES.map((f) => cell(row[f], digitsOf(f))).join('')}`);
  }
  const added = overheads(summary);
  if (added.length > 0) {
    lines.push('', `opsbot over bare-sdk, ms added per call (× bare-sdk), min/median:`);
    lines.push(`${'runner'.padEnd(19)}${OVERHEAD_FIGURES.map((f) => f.padStart(24)).join('')}`);
    for (const runner of new Set(added.map((o) => o.runner))) {
      const cells = OVERHEAD_FIGURES.map((figure) => {
        const o = added.find((candidate) => candidate.runner === runner && candidate.figure === figure)!;
        return `${signed(o.addedMs.min)}/${signed(o.addedMs.median)} (${o.ratio.median.toFixed(1)}×)`.padStart(
          24,
        );
      });
      lines.push(`${runner.padEnd(19)}${cells.join('')}`);
    }
  }
  return lines.join('\n');
}
