// Tool call durations from the trace: the kernel writes one `tool_call` record per call, in the process that
// made it, with the tool, how it went and how long it took. This sink times them and passes every record on.
import type { TraceRecord, TraceSink } from '../../agent/trace.js';
import type { OpsbotMetrics, ToolCallOutcome } from './opsbot-metrics.js';

/** The classes of a call stopped before it ran: by the policy, or by an approver's denial. */
const REFUSALS: ReadonlySet<string> = new Set(['permission_denied', 'refused_by_policy']);

export interface MeteredTraceSinkOptions {
  metrics: OpsbotMetrics;
  /**
   * Whether a tool name is one of ours. The model names the tools it calls, so a name it made up is counted
   * as `unknown`: a label must never take values from outside the settings.
   */
  knownTool: (name: string) => boolean;
}

export function meteredTraceSink(inner: TraceSink, options: MeteredTraceSinkOptions): TraceSink {
  return {
    append(record: TraceRecord) {
      if (record.kind === 'tool_call') {
        const tool = record.tool !== undefined && options.knownTool(record.tool) ? record.tool : 'unknown';
        options.metrics.toolCalled(tool, toolCallOutcome(record), record.durationMs);
      }
      return inner.append(record);
    },
  };
}

function toolCallOutcome(record: TraceRecord): ToolCallOutcome {
  if (record.ok !== false) return 'ok';
  return record.errorClass !== undefined && REFUSALS.has(record.errorClass) ? 'refused' : 'failed';
}
