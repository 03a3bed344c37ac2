// What the kernel needs from a chat platform: post and update messages in a conversation. Nothing more.
import type { Conversation } from './conversation.js';

export type MessageTone = 'info' | 'working' | 'success' | 'warning' | 'error';

/** A platform-neutral message. Adapters render it to Block Kit, Discord components, HTML or a terminal. */
export type OutboundMessage =
  | { kind: 'text'; text: string; tone?: MessageTone }
  | { kind: 'status'; runId: string; text: string; tone: MessageTone }
  | {
      kind: 'question';
      runId: string;
      question: string;
      choices: string[];
      /** Who may answer, for the adapter to show. */
      askedOf: string;
      /** Set once answered: the question then shows the answer and loses its buttons. */
      answered?: { by: string; answer: string; at: number };
    }
  | {
      kind: 'approval';
      runId: string;
      approvalId: string;
      requester: string;
      tool: string;
      /** The exact arguments, already redacted. */
      argumentsJson: string;
      reason: string;
      approvers: string[];
      expiresAt: number;
      /** Set once decided: the card then shows the outcome and loses its buttons. */
      decision?: {
        /** withdrawn: the run was cancelled while it waited; `by` is who cancelled it. */
        outcome: 'approved' | 'denied' | 'expired' | 'withdrawn';
        by: string;
        at: number;
        reason?: string;
      };
    }
  | {
      kind: 'result';
      runId: string;
      text: string;
      ok: boolean;
      /** Structured tool results to render as tables or fields. */
      details?: { tool: string; summary: string; data?: unknown }[];
    };

export interface MessageRef {
  conversation: Conversation;
  messageId: string;
}

export interface ChatPort {
  post(conversation: Conversation, message: OutboundMessage): Promise<MessageRef>;
  update(ref: MessageRef, message: OutboundMessage): Promise<void>;
}

/** A ChatPort that drops everything, for runs nobody is watching. */
export const nullChatPort: ChatPort = {
  async post(conversation) {
    return { conversation, messageId: 'null' };
  },
  async update() {},
};
