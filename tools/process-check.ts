// The process_check tool: which processes match a name or pattern, with pid, CPU, memory and start time.
import { access } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { defineTool, type Tool } from '../agent/tool.js';
import { abortText, timeoutField, withCallLimits } from './call-limits.js';
import { createLineMatcher, PatternRefusal, PatternTimeout } from './line-pattern.js';
import { commandLine, describeProcesses, listProcesses, type ProcessEntry } from './process-table.js';

const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 30_000;
const KERNEL_NAME_LENGTH = 15;

const input = z
  .object({
    name: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe(
        'Exact process name, as in ps or top (e.g. "nginx", "postgres"); also matched against the program file name.',
      ),
    pattern: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe(
        'Regular expression searched in the full command line (e.g. "java .*order-service"). Nested repetition is refused.',
      ),
    expect: z
      .enum(['running', 'absent'])
      .default('running')
      .describe('"running": ok when at least one process matches; "absent": ok when none does.'),
    max_results: z.number().int().min(1).max(200).default(50).describe('Most processes to list.'),
    timeout_ms: timeoutField(DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
  })
  .strict()
  .refine(
    (value) => value.name !== undefined || value.pattern !== undefined,
    'give a name, a pattern, or both',
  );

const description = `Finds the processes on this machine whose name equals "name" and/or whose command line matches the regex "pattern", and lists them with pid, parent pid, user, state, CPU, memory and start time. It reads /proc directly (Linux).
Result data: processes [{pid, ppid, name, user, state, cpu_percent (average over the process's life, as ps shows), memory_bytes, memory_percent, started_at, elapsed_seconds, command}], matched (total, may exceed the rows listed). ok follows "expect": running (default) or absent.
Use this when you need to know whether a daemon or worker is running, how many copies there are, when it (re)started, or whether it is eating CPU or memory.
Do not use it for services on other machines (it only sees this one), for systemd unit state (use a configured command such as service_status), or to stop processes (it cannot).`;

function nameMatches(entry: ProcessEntry, name: string): boolean {
  if (entry.name === name || entry.name === name.slice(0, KERNEL_NAME_LENGTH)) return true;
  const program = entry.argv[0];
  return program !== undefined && basename(program) === name;
}

export function createProcessCheckTool(): Tool {
  return defineTool({
    name: 'process_check',
    description,
    input,
    risk: 'read',
    timeoutMs: MAX_TIMEOUT_MS,
    execute(ctx, args) {
      return withCallLimits(ctx, args.timeout_ms, DEFAULT_TIMEOUT_MS, async (limits) => {
        if (
          !(await access('/proc/self/stat').then(
            () => true,
            () => false,
          ))
        ) {
          return {
            ok: false,
            summary: 'process_check needs /proc, which this system does not have.',
            data: {},
          };
        }
        let matcher: ReturnType<typeof createLineMatcher> | undefined;
        try {
          if (args.pattern !== undefined)
            matcher = createLineMatcher({ pattern: args.pattern, regex: true, ignoreCase: false });
        } catch (error) {
          if (error instanceof PatternRefusal) {
            return {
              ok: false,
              summary: `process_check refused: ${error.message}.`,
              data: { refused: true },
            };
          }
          throw error;
        }
        let candidates = (await listProcesses()).filter((entry) => entry.pid !== process.pid);
        if (args.name !== undefined)
          candidates = candidates.filter((entry) => nameMatches(entry, args.name ?? ''));
        try {
          if (matcher) {
            const hits = await matcher.match(candidates.map(commandLine), limits.deadline);
            candidates = candidates.filter((_entry, index) => hits[index]);
          }
        } catch (error) {
          if (error instanceof PatternTimeout) {
            return {
              ok: false,
              summary: `process_check stopped: ${error.message} (${abortText(limits)}).`,
              data: {},
            };
          }
          throw error;
        } finally {
          await matcher?.close();
        }
        const rows = await describeProcesses(candidates.slice(0, args.max_results));
        const what = [
          args.name && `named ${JSON.stringify(args.name)}`,
          args.pattern && `matching /${args.pattern}/`,
        ]
          .filter(Boolean)
          .join(' and ');
        const ok = args.expect === 'running' ? rows.length > 0 : rows.length === 0;
        let summary: string;
        if (rows.length === 0) {
          summary = `No process ${what} is running${args.expect === 'absent' ? ', as expected' : ''}.`;
        } else {
          const shown = rows
            .slice(0, 3)
            .map((row) => `pid ${row.pid} (${row.cpu_percent}% CPU, started ${row.started_at})`)
            .join(', ');
          summary = `${candidates.length} process${candidates.length === 1 ? '' : 'es'} ${what}: ${shown}${rows.length > 3 ? ', …' : ''}${args.expect === 'absent' ? ', but none was expected' : ''}.`;
        }
        return { ok, summary, data: { matched: candidates.length, processes: rows } };
      });
    },
  });
}
