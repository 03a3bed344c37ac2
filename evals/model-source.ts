// Where a scenario's model replies come from: its script, a recorded cassette, or a live model behind a
// recording proxy. Each gives opsbot an endpoint, and afterwards what was sent and what went wrong on its side.
import type { SentRequest } from './sent-fingerprint.js';

export interface ModelEndpoint {
  baseURL: string;
  apiKey: string;
  model: string;
}

export interface SentModelRequest {
  body: SentRequest;
  /** The request exactly as sent, for `never_shown`. */
  rawBody: string;
}

export interface ModelSource {
  readonly endpoint: ModelEndpoint;
  /** Every chat completion request the model received, in order. */
  requests(): SentModelRequest[];
  /** Reasons the model side fails the scenario: a script too short or too long, a stale cassette. */
  problems(): string[];
  close(): Promise<void>;
}
