// What the model was sent, reduced to what a prompt change alters: the tools offered, and hashes of the system
// prompt and the tool descriptions. The world's addresses and the run's start time are named, not hashed, so
// the same scenario gives the same fingerprint on every run.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { unfillText } from './template.js';

export const SentFingerprintSchema = z
  .object({
    tools: z.array(z.string()),
    system_prompt: z.string(),
    tool_descriptions: z.string(),
  })
  .strict();
export type SentFingerprint = z.infer<typeof SentFingerprintSchema>;

/** The parts of a chat completion request the fingerprint reads; anything else in it is ignored. */
export interface SentRequest {
  messages?: Array<{ role: string; content?: unknown }>;
  tools?: Array<{ function: { name: string; description?: string; parameters?: unknown } }>;
}

const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g;

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

function normalized(text: string, values: Record<string, string>): string {
  return unfillText(text, values).replace(ISO_TIME, '{{now}}');
}

export function fingerprintOf(request: SentRequest, values: Record<string, string>): SentFingerprint {
  const system = request.messages?.find((message) => message.role === 'system')?.content;
  const tools = request.tools ?? [];
  return {
    tools: tools.map((tool) => tool.function.name).sort(),
    system_prompt: hash(normalized(typeof system === 'string' ? system : '', values)),
    tool_descriptions: hash(normalized(JSON.stringify(tools.map((tool) => tool.function)), values)),
  };
}

/** The run's fingerprints in order, each listed once: most runs send one, a compressed run may send two. */
export function distinctFingerprints(
  requests: SentRequest[],
  values: Record<string, string>,
): SentFingerprint[] {
  const seen = new Map<string, SentFingerprint>();
  for (const request of requests) {
    const fingerprint = fingerprintOf(request, values);
    seen.set(JSON.stringify(fingerprint), fingerprint);
  }
  return [...seen.values()];
}

/** How `actual` differs from `expected`, in words; empty when they are the same. */
export function fingerprintChanges(expected: SentFingerprint, actual: SentFingerprint): string[] {
  const changes: string[] = [];
  const added = actual.tools.filter((tool) => !expected.tools.includes(tool));
  const removed = expected.tools.filter((tool) => !actual.tools.includes(tool));
  if (added.length > 0 || removed.length > 0) {
    const parts = [...added.map((tool) => `+${tool}`), ...removed.map((tool) => `-${tool}`)];
    changes.push(`tools offered ${parts.join(' ')}`);
  }
  if (expected.system_prompt !== actual.system_prompt) {
    changes.push(`system prompt ${expected.system_prompt} → ${actual.system_prompt}`);
  }
  if (expected.tool_descriptions !== actual.tool_descriptions) {
    changes.push(`tool descriptions ${expected.tool_descriptions} → ${actual.tool_descriptions}`);
  }
  return changes;
}
