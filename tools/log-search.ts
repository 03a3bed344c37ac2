// The log_search tool: finds lines in log files under the configured roots, newest first.
import { z } from 'zod';
import { defineTool, type Tool } from '../agent/tool.js';
import { abortText, errorText, formatBytes, timeoutField, withCallLimits } from './call-limits.js';
import { createLineMatcher, PatternRefusal, PatternTimeout } from './line-pattern.js';
import { type FileSearchReport, type LogMatch, searchLogFile } from './log-file-search.js';
import { findLogFiles } from './log-files.js';
import { parseSince } from './log-timestamp.js';
import { PathRefusal, resolveRoots } from './safe-path.js';

const DEFAULT_TIMEOUT_MS = 20_000;
const MAX_TIMEOUT_MS = 120_000;
/** Bytes read backwards across all files in one call: the cap on total work. */
export const DEFAULT_WORK_BUDGET_BYTES = 512 * 1024 * 1024;

export interface LogSearchOptions {
  roots: string[];
  cwd?: string;
  workBudgetBytes?: number;
  now?: () => number;
}

const input = z
  .object({
    glob: z
      .string()
      .min(1)
      .max(512)
      .describe(
        'Which files: a glob relative to each log root (e.g. "nginx/*.log", "**/*.log", "syslog"), or an absolute path or glob under a root (e.g. "/var/log/app/*.log").',
      ),
    pattern: z.string().min(1).max(512).describe('Text to look for. Plain text unless regex is true.'),
    regex: z
      .boolean()
      .default(false)
      .describe(
        'Treat pattern as a JavaScript regular expression. Nested repetition such as (a+)+ is refused.',
      ),
    ignore_case: z.boolean().default(false).describe('Match regardless of letter case.'),
    since: z
      .string()
      .max(64)
      .optional()
      .describe(
        'Only lines at or after this time: a relative age (30s, 15m, 2h, 1d, 1w) or an ISO time (2024-05-01T12:00:00Z). Lines without a timestamp are kept.',
      ),
    max_lines: z.number().int().min(1).max(1000).default(100).describe('Most matching lines to return.'),
    timeout_ms: timeoutField(DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
  })
  .strict();

const description = `Searches log files under the configured log roots for lines containing a text or matching a regex, and returns the matching lines newest first, each with its file, line number, and timestamp.
Files are read backwards from their end in small chunks, so large logs are cheap to search for recent events. With "since", reading stops at the first line older than that time (log files are assumed to be in time order); lines without a recognizable timestamp are included. Recognized timestamps: ISO 8601 (2024-05-01T12:00:00Z, 2024-05-01 12:00:00,123), syslog (May  1 12:00:00) and Apache/nginx ([01/May/2024:12:00:00 +0000]).
Result data: matches [{file, line, line_from_end, timestamp, text, truncated}], files [{file, size_bytes, bytes_read, lines_scanned, matches, stopped_at}], refused [{path, reason}], complete. "line" is the 1-based line number, or null if counting it would have meant reading too much of a huge file; "line_from_end" is always exact (1 = last line). A line inside a private key block of the file comes back as "[REDACTED]", even when the block's BEGIN and END lines do not match.
Use this when you need evidence from logs: errors around an incident, the last occurrences of a message, what a service logged in the last 15 minutes.
Do not use it for files outside the log roots (they are refused, as are "..", percent-encoded paths and symlinks that lead out), for live tailing, or to read a whole file; narrow with since and a specific pattern instead. Do not use regex unless you need it; plain text is faster.`;

function sortNewestFirst(matches: LogMatch[]): LogMatch[] {
  // Stable sort: within a file, order of reading (newest first) is kept for equal keys.
  return matches.sort((a, b) => b.sortKey - a.sortKey);
}

export function createLogSearchTool(options: LogSearchOptions): Tool {
  const now = options.now ?? Date.now;
  const workBudget = options.workBudgetBytes ?? DEFAULT_WORK_BUDGET_BYTES;
  return defineTool({
    name: 'log_search',
    description,
    input,
    risk: 'read',
    timeoutMs: MAX_TIMEOUT_MS,
    execute(ctx, args) {
      return withCallLimits(ctx, args.timeout_ms, DEFAULT_TIMEOUT_MS, async (limits) => {
        const nowMs = now();
        let sinceMs: number | undefined;
        try {
          sinceMs = args.since === undefined ? undefined : parseSince(args.since, nowMs);
        } catch (error) {
          return { ok: false, summary: `log_search refused: ${errorText(error)}.`, data: { refused: true } };
        }
        let matcher: ReturnType<typeof createLineMatcher>;
        let found: Awaited<ReturnType<typeof findLogFiles>>;
        const roots = await resolveRoots(options.roots, options.cwd);
        try {
          matcher = createLineMatcher({
            pattern: args.pattern,
            regex: args.regex,
            ignoreCase: args.ignore_case,
          });
          found = await findLogFiles(args.glob, roots);
        } catch (error) {
          if (error instanceof PatternRefusal || error instanceof PathRefusal) {
            return { ok: false, summary: `log_search refused: ${error.message}.`, data: { refused: true } };
          }
          throw error;
        }
        const rootNames = roots.map((root) => root.configured);
        if (found.files.length === 0) {
          const why =
            found.refused.length > 0
              ? `refused ${found.refused.map((item) => `${item.path} (${item.reason})`).join('; ')}`
              : `no file under ${rootNames.join(', ')} matches ${JSON.stringify(args.glob)}`;
          return {
            ok: false,
            summary: `log_search found nothing to search: ${why}.`,
            data: { roots: rootNames, refused: found.refused },
          };
        }

        const all: LogMatch[] = [];
        const reports: FileSearchReport[] = [];
        const failures: { path: string; reason: string }[] = [];
        let bytesLeft = workBudget;
        let interruption: string | undefined;
        const budgetText = `the work budget of ${formatBytes(workBudget)} read was used up`;
        try {
          for (const file of found.files) {
            if (limits.signal.aborted || Date.now() > limits.deadline) {
              interruption = abortText(limits);
              break;
            }
            if (bytesLeft <= 0) {
              interruption = budgetText;
              break;
            }
            try {
              const result = await searchLogFile(file, {
                matcher,
                sinceMs,
                maxMatches: args.max_lines,
                deadline: limits.deadline,
                signal: limits.signal,
                bytesBudget: bytesLeft,
                nowMs,
              });
              bytesLeft -= result.report.bytes_read;
              all.push(...result.matches);
              reports.push(result.report);
              if (result.report.stopped_at === 'deadline') interruption = abortText(limits);
              if (result.report.stopped_at === 'work_budget') interruption = budgetText;
              if (interruption) break;
            } catch (error) {
              if (error instanceof PatternTimeout) {
                interruption = `${error.message} (${abortText(limits)})`;
                break;
              }
              failures.push({ path: file.display, reason: errorText(error) });
            }
          }
        } finally {
          await matcher.close();
        }

        const matches = sortNewestFirst(all)
          .slice(0, args.max_lines)
          .map(({ sortKey: _sortKey, ...rest }) => rest);
        const complete =
          interruption === undefined &&
          !found.incomplete &&
          reports.every((report) => report.stopped_at === 'start_of_file' || report.stopped_at === 'since');
        const fileCount = `${reports.length} file${reports.length === 1 ? '' : 's'}`;
        const quoted = JSON.stringify(args.pattern);
        let summary =
          matches.length === 0
            ? `No lines matching ${quoted} in ${fileCount}${args.since ? ` since ${args.since}` : ''}.`
            : `Found ${matches.length} line${matches.length === 1 ? '' : 's'} matching ${quoted} in ${fileCount}${args.since ? ` since ${args.since}` : ''}, newest first${matches[0]?.timestamp ? ` (latest ${matches[0].timestamp})` : ''}.`;
        if (interruption) summary += ` The search stopped early: ${interruption}.`;
        if (found.refused.length > 0) summary += ` ${found.refused.length} path(s) were refused.`;
        return {
          // An interrupted search may have missed newer matches in files it never reached; say so in ok too.
          ok: interruption === undefined,
          summary,
          data: {
            matches,
            files: reports,
            refused: found.refused,
            failed: failures,
            complete,
            roots: rootNames,
          },
        };
      });
    },
  });
}
