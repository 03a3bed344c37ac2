// The neutral view every adapter renders: blocks, buttons, an outcome and small print, within one platform's limits.
import type { MessageTone, OutboundMessage } from '../../agent/chat-port.js';
import type { PlanStepState } from '../../agent/plan-progress.js';
import type { ViewLimits } from './view-limits.js';
import type { ToolDataView } from './view-tables.js';

/**
 * Every string in a view is inert (no pings) and within the platform's limits. `markdown` text came from the model
 * or a tool and is converted by each adapter its own way; `plain` text is opsbot's own and is shown as written.
 */
export type ViewBlock =
  | { type: 'text'; text: string; format: 'markdown' | 'plain'; label?: string }
  | { type: 'code'; code: string; label?: string }
  | { type: 'fields'; fields: ViewField[] }
  | { type: 'detail'; tool: string; summary?: string; data: ToolDataView }
  /** A plan's steps, each with its state: adapters show the state as an icon, its words when they have none. */
  | { type: 'checklist'; items: ViewChecklistItem[] };

/** One step of a checklist; every string plain text (a tool's summary and the model's reason, shown escaped). */
export interface ViewChecklistItem {
  state: PlanStepState;
  /** "2. read_logs". */
  label: string;
  /** The model's reason for the step. */
  why?: string;
  /** The tool's summary once it ran, or why it waits or was skipped. */
  note?: string;
}

export interface ViewField {
  label: string;
  value: string;
  /** Shown as code (a tool name, an id). */
  code?: boolean;
  /** The value is this instant, written in UTC; adapters that can show the reader's own zone use this. */
  at?: number;
}

export interface ViewButton {
  /** From the button codec: opaque ids only, at most 100 characters. */
  id: string;
  label: string;
  style: 'primary' | 'danger' | 'default';
  /** Buttons of one row share a number; renderers start a new row where it changes. The first row is 0. */
  row?: number;
}

/** How a card ended: it then has no buttons. */
export interface ViewOutcome {
  /** withdrawn: the run was cancelled while the card waited; `by` is who cancelled it. */
  /** confirmed: a Confirm card (see the approval card's `confirm`) its requester approved. */
  state: 'approved' | 'confirmed' | 'denied' | 'expired' | 'withdrawn' | 'answered';
  /** Who decided, cancelled or answered; absent when nobody did (expired). */
  by?: string;
  at: number;
  /** The answer, or the reason given. */
  detail?: string;
}

export const OUTCOME_WORDS: Record<ViewOutcome['state'], string> = {
  approved: 'Approved',
  confirmed: 'Confirmed',
  denied: 'Denied',
  expired: 'Expired',
  withdrawn: 'Cancelled',
  answered: 'Answered',
};

export interface MessageView {
  kind: OutboundMessage['kind'];
  tone?: MessageTone;
  /** One plain line: notifications, and platforms' fallback text. */
  summary: string;
  heading?: string;
  blocks: ViewBlock[];
  buttons: ViewButton[];
  outcome?: ViewOutcome;
  /** Small print: the run id (so people can name it in `status` and `cancel`), or a hint. */
  footer?: string;
  /** While the buttons are live: when they stop meaning anything. */
  expiresAt?: number;
  /** Output too long to read in messages, whole; the blocks then hold a preview. */
  attachment?: { filename: string; title: string; content: string };
}

export interface ViewOptions {
  now: number;
  limits: ViewLimits;
}
