// What every Prometheus and Alertmanager tool call shares: its time limits, a guard refusal as a result the model
// reads, a server that cannot be reached as a failure of the call, and no header secret in anything it returns.
import type { ToolContext, ToolResult } from '../../agent/tool.js';
import { ToolArgumentError } from '../../agent/tool-errors.js';
import { abortText, type CallLimits, errorText, withCallLimits } from '../call-limits.js';
import { NetworkRefusal } from '../network-guard.js';
import { withoutSecrets } from './endpoint-headers.js';
import type { MonitoringClient } from './monitoring-client.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_TIMEOUT_MS = 60_000;

export async function monitoringCall(
  tool: string,
  client: MonitoringClient,
  ctx: ToolContext,
  requestedMs: number | undefined,
  work: (limits: CallLimits) => Promise<ToolResult>,
): Promise<ToolResult> {
  const result = await withCallLimits(ctx, requestedMs, DEFAULT_TIMEOUT_MS, async (limits) => {
    try {
      return await work(limits);
    } catch (error) {
      if (error instanceof NetworkRefusal) {
        return {
          ok: false,
          summary: `${tool} refused: ${client.server} at ${client.urlOf('')} ${error.message.replace(/^refused: /, 'is refused: ')}.`,
          data: { refused: true, server: client.server },
        };
      }
      if (limits.signal.aborted && !limits.cancelledByCaller()) {
        return {
          ok: false,
          summary: `${tool}: ${client.server} did not answer: ${abortText(limits)}.`,
          data: { timed_out: true, timeout_ms: limits.timeoutMs },
        };
      }
      if (error instanceof ToolArgumentError) {
        throw new ToolArgumentError(withoutSecrets(error.message, client.secrets));
      }
      throw new Error(
        withoutSecrets(`${client.server} at ${client.urlOf('')}: ${errorText(error)}`, client.secrets),
      );
    }
  });
  return withoutSecrets(result, client.secrets);
}
