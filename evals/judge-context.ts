// Judges long work: whether the kernel compressed the run's context, and what the model had before it at the end.
import { textProblems } from './matchers.js';
import type { ScenarioOutcome } from './outcome.js';
import type { Expect } from './schema.js';

/** Read from the kernel's own `context_compressed` events, so a scenario cannot pass without compressing. */
export function compressionProblems(expect: Expect, outcome: ScenarioOutcome): string[] {
  if (expect.context_compressed === undefined) return [];
  const { run } = outcome;
  const compressions = run.events.flatMap((event) =>
    event.type === 'context_compressed'
      ? [`at step ${event.step}, ${event.beforeTokens} → ${event.afterTokens} tokens`]
      : [],
  );
  if (expect.context_compressed && compressions.length === 0) {
    return [
      `expected the context to be compressed; it never was in ${run.step} steps (is model.context_window small enough?)`,
    ];
  }
  if (!expect.context_compressed && compressions.length > 0) {
    return [`the context was compressed (${compressions.join('; ')}), expected no compression`];
  }
  return [];
}

interface RequestMessage {
  content?: unknown;
  tool_calls?: { function?: { name?: unknown; arguments?: unknown } }[];
}

/** The text of a model request's messages (contents and call arguments), one per line; the raw body otherwise. */
export function requestText(rawBody: string): string {
  try {
    const messages = (JSON.parse(rawBody) as { messages?: RequestMessage[] }).messages ?? [];
    return messages
      .flatMap((message) => [
        typeof message.content === 'string' ? message.content : '',
        ...(message.tool_calls ?? []).map(
          (call) => `${String(call.function?.name)}(${String(call.function?.arguments)})`,
        ),
      ])
      .join('\n');
  } catch {
    return rawBody;
  }
}

export function lastRequestProblems(expect: Expect, outcome: ScenarioOutcome): string[] {
  if (!expect.last_model_request) return [];
  const last = outcome.modelRequests.at(-1);
  return textProblems(
    'the last model request',
    expect.last_model_request,
    last === undefined ? undefined : requestText(last),
  );
}
