// Prompt tokens of a run's requests, and how many of them a provider's prefix cache could not reuse: a request's
// uncached tokens are those after its longest common prefix with the previous request of the run.
import { estimateTokens } from '../../agent/context/token-estimate.js';
import type { FakeRequestBody } from '../../tests/fakes/openai-answers.js';

export interface RequestTokens {
  /** The whole prompt, estimated. */
  total: number;
  /** After the longest common prefix with the previous request; the whole prompt for the first. */
  uncached: number;
}

export interface PromptTally {
  requests: RequestTokens[];
  total: number;
  uncached: number;
}

/**
 * The prompt as a provider renders it: tools first (they sit in the prefix, whatever the JSON order), then the
 * messages, each exactly as the SDK serialized it.
 */
export function promptText(body: FakeRequestBody): string {
  return JSON.stringify({ tools: body.tools ?? [], messages: body.messages ?? [] });
}

export function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

/** Tallies the requests of one run, in the order they were sent. */
export function tallyPrompts(bodies: readonly FakeRequestBody[]): PromptTally {
  let previous = '';
  const requests = bodies.map((body) => {
    const text = promptText(body);
    const shared = commonPrefixLength(previous, text);
    previous = text;
    return { total: estimateTokens(text), uncached: estimateTokens(text.slice(shared)) };
  });
  return {
    requests,
    total: requests.reduce((sum, request) => sum + request.total, 0),
    uncached: requests.reduce((sum, request) => sum + request.uncached, 0),
  };
}
