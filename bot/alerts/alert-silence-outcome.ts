// What a Silence button's ended run made, read from the run alone: the silence its alertmanager_silence call
// created (who asked, until when, its id), or nothing when the run was denied, expired, refused, cancelled or
// failed. Pure.
import { z } from 'zod';
import { parseDuration } from '../../agent/policy/duration.js';
import type { Run } from '../../agent/run.js';
import type { AlertGroupSilence } from './alert-group-state.js';

/** The part of the tool's result the root shows; the rest of its data is the thread's to show. */
const SilenceResult = z.object({
  ok: z.literal(true),
  data: z.object({ silence_id: z.string().min(1).optional(), ends_at: z.string().optional() }).optional(),
});

export function silenceOutcome(run: Run, tool: string, duration: string): AlertGroupSilence | undefined {
  if (run.status !== 'finished' || !run.ok) return undefined;
  const result = run.messages.findLast((message) => message.role === 'tool' && message.name === tool);
  if (result?.role !== 'tool') return undefined;
  const parsed = SilenceResult.safeParse(parseJson(result.content));
  if (!parsed.success) return undefined;
  const endsAt = Date.parse(parsed.data.data?.ends_at ?? '');
  // Without the tool's own end (a result cut short), the silence lasts its length from when the run ended.
  const until = Number.isFinite(endsAt) ? endsAt : endedAt(run) + parseDuration(duration);
  const silenceId = parsed.data.data?.silence_id;
  return {
    by: run.principal.displayName || run.principal.userId,
    until,
    duration,
    ...(silenceId ? { silenceId } : {}),
  };
}

function endedAt(run: Run): number {
  return run.events.at(-1)?.at ?? run.updatedAt;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
