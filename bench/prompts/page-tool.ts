// The read tool of the prompt bench: one page of a log per call, about 5 KB of output, with a one-line summary.
import { z } from 'zod';
import { defineTool, type Tool, type ToolResult } from '../../agent/tool.js';

export const PAGE_TOOL = 'read_log_page';

/** The finding the first page holds, which the answer must still cite after old outputs are cut. */
export const FIRST_FINDING = 'PAYMENT_TIMEOUT_MS changed 5000 -> 800';

/** Deterministic lines, different on every page, so no two outputs share text by accident. */
export function logPage(page: number, bytes: number): ToolResult {
  const lines: string[] = [];
  if (page === 1) lines.push(`2026-11-30T13:01:58Z INFO checkout 7.3.0 config: ${FIRST_FINDING}`);
  let size = 0;
  for (let line = 0; size < bytes - 200; line++) {
    const text = `2026-11-30T13:${String(line % 60).padStart(2, '0')}:${String((page * 7 + line) % 60).padStart(2, '0')}Z WARN checkout order ORD-${page * 1000 + line} payment authorize timed out after 800ms`;
    lines.push(text);
    size += text.length + 3;
  }
  const summary =
    page === 1
      ? `page 1 of checkout.log: ${lines.length} lines; the deploy's config line says ${FIRST_FINDING}`
      : `page ${page} of checkout.log: ${lines.length} lines, payment timeouts after 800ms`;
  return { ok: true, summary, data: { page, lines } };
}

export function pageTool(bytes: number): Tool {
  return defineTool({
    name: PAGE_TOOL,
    description:
      'Read one page of the checkout log, newest page last. Use when you need the raw log lines. Do not use for other services.',
    input: z.object({ page: z.number().int().min(1).describe('The page to read, from 1') }),
    risk: 'read',
    execute: async (_ctx, input) => logPage(input.page, bytes),
  });
}
