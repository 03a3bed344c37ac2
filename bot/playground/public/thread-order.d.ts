// Types for thread-order.js, which the page loads as is and the tests import.

export interface OrderableMessage {
  author: { kind: 'bot' } | { kind: 'user'; [key: string]: unknown };
  content: { kind: string; runId?: unknown; answered?: { at: number }; [key: string]: unknown };
  createdAt: number;
  updatedAt: number;
  seq: number;
}

export function orderReplies<M extends OrderableMessage>(replies: M[]): M[];
export function isReply(message: OrderableMessage): boolean;
